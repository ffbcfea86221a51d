/**
 * `npm run certs [-- --service NAME --namespace NS --manifests DIR --certs-dir DIR --host NAME...]`:
 * issues Cairn's serving certificate for the Service the APIServices in `apiservice/` name,
 * writes the Secret the Deployment mounts it from, and puts the CA into every APIService's
 * `caBundle` (see apiservice/README.md). Running it again keeps the CA and the certificate
 * while they are still good.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeApiServiceCerts } from './apiservice-certs.js';

try {
  const { values } = parseArgs({
    options: {
      service: { type: 'string', default: 'cairn-apiserver' },
      namespace: { type: 'string', default: 'cairn-system' },
      manifests: { type: 'string', default: 'apiservice' },
      'certs-dir': { type: 'string' },
      host: { type: 'string', multiple: true, default: [] },
    },
  });
  const written = await writeApiServiceCerts({
    service: values.service,
    namespace: values.namespace,
    manifestsDir: values.manifests,
    certsDir: values['certs-dir'] ?? join(values.manifests, 'certs'),
    extraHosts: values.host,
  });
  console.log(`serving certificate for ${written.hosts.join(', ')}`);
  console.log(`  --tls-cert-file ${written.certFile} --tls-private-key-file ${written.keyFile}`);
  console.log(`Secret: ${written.secretFile}`);
  for (const file of written.apiServiceFiles) console.log(`caBundle: ${file}`);
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 1;
}
