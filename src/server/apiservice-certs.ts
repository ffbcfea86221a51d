/**
 * The TLS material of Cairn behind kube-apiserver's aggregator (`npm run certs`): a CA and
 * a serving certificate for the Service the APIServices name, the Secret the Deployment
 * mounts it from, and the CA as `caBundle` in every APIService manifest.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { ensureServingPki } from './pki.js';

/** Options of {@link writeApiServiceCerts}. */
export interface ApiServiceCertsOptions {
  /** The Service kube-apiserver reaches Cairn through, e.g. `cairn-apiserver`. */
  readonly service: string;
  /** Its namespace, e.g. `cairn-system`. */
  readonly namespace: string;
  /** The folder of manifests (`apiservice/`): its APIServices get the `caBundle`, the Secret is written there. */
  readonly manifestsDir: string;
  /** Where the CA and the serving certificate are kept; an existing CA is reused. */
  readonly certsDir: string;
  /** More names and IPs for the serving certificate. */
  readonly extraHosts?: readonly string[];
}

/** What {@link writeApiServiceCerts} wrote. */
export interface ApiServiceCerts {
  /** The names and IPs the serving certificate covers. */
  readonly hosts: readonly string[];
  /** The serving certificate with the CA's after it, for `--tls-cert-file`. */
  readonly certFile: string;
  /** Its key, for `--tls-private-key-file`. */
  readonly keyFile: string;
  /** The Secret manifest holding both. */
  readonly secretFile: string;
  /** The APIService manifests whose `caBundle` was set. */
  readonly apiServiceFiles: readonly string[];
}

/** The Secret the Deployment mounts at /etc/cairn/serving. */
export const servingCertSecretName = 'cairn-serving-cert';
/** Its manifest, beside the others so `kubectl apply -f apiservice/` applies it too (git ignores it: it holds a key). */
export const servingCertSecretFile = '21-serving-cert-secret.yaml';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Loopback names, so the kubeconfig Cairn writes for itself (`https://127.0.0.1:PORT`) verifies too. */
const LOOPBACK = ['localhost', '127.0.0.1', '::1'];

/**
 * Issues (or keeps, when still good) a CA and a serving certificate whose SANs are the
 * Service's names — `<service>.<namespace>.svc`, which the aggregator verifies, then
 * `<service>.<namespace>` and `<service>` — and the loopback ones; writes the Secret manifest
 * and puts the CA, base64, into `spec.caBundle` of every APIService manifest, which must
 * name that Service.
 *
 * @example
 * await writeApiServiceCerts({ service: 'cairn-apiserver', namespace: 'cairn-system', manifestsDir: 'apiservice', certsDir: 'apiservice/certs' });
 */
export async function writeApiServiceCerts(options: ApiServiceCertsOptions): Promise<ApiServiceCerts> {
  const { service, namespace } = options;
  for (const [what, name] of [
    ['service', service],
    ['namespace', namespace],
  ]) {
    if (!DNS_LABEL.test(name)) throw new Error(`${what} "${name}" is not a DNS label (lowercase letters, digits and '-', at most 63)`);
  }
  const hosts = [...new Set([`${service}.${namespace}.svc`, `${service}.${namespace}`, service, ...LOOPBACK, ...(options.extraHosts ?? [])])];
  const apiServices = await apiServiceManifests(options.manifestsDir, service, namespace);

  const pki = await ensureServingPki(options.certsDir, { hosts });
  const chainPem = pki.certPem + pki.caPem;
  const certFile = join(options.certsDir, 'tls.crt');
  await writeFile(certFile, chainPem, { mode: 0o644 });

  const secretFile = join(options.manifestsDir, servingCertSecretFile);
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: servingCertSecretName, namespace, labels: { 'app.kubernetes.io/name': service, 'app.kubernetes.io/part-of': 'cairn' } },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': base64(chainPem), 'tls.key': base64(pki.keyPem), 'ca.crt': base64(pki.caPem) },
  };
  const header = `# Written by \`npm run certs -- --service ${service} --namespace ${namespace}\`: Cairn's serving certificate (the CA's after it) and key.\n`;
  await writeFile(secretFile, header + stringify(secret, { lineWidth: 0 }), { mode: 0o600 });

  const caBundle = base64(pki.caPem);
  for (const { file, text } of apiServices) {
    const documents = parseAllDocuments(text);
    for (const document of documents) if (document.get('kind') === 'APIService') document.setIn(['spec', 'caBundle'], caBundle);
    await writeFile(file, documents.map((document) => document.toString({ lineWidth: 0, flowCollectionPadding: false })).join(''));
  }

  return Object.freeze({
    hosts: Object.freeze(hosts),
    certFile,
    keyFile: join(options.certsDir, 'serving.key'),
    secretFile,
    apiServiceFiles: Object.freeze(apiServices.map(({ file }) => file)),
  });
}

/** The manifest files holding an APIService; each must route to `service` in `namespace`, or its caBundle would be for another name. */
async function apiServiceManifests(dir: string, service: string, namespace: string): Promise<{ file: string; text: string }[]> {
  const found: { file: string; text: string }[] = [];
  for (const name of (await readdir(dir)).filter((n) => /\.ya?ml$/.test(n)).sort()) {
    const file = join(dir, name);
    const text = await readFile(file, 'utf8');
    const documents = parseAllDocuments(text);
    let holdsApiService = false;
    for (const document of documents) {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0].message}`);
      const object = document.toJS() as { kind?: unknown; metadata?: { name?: unknown }; spec?: { service?: { name?: unknown; namespace?: unknown } } } | null;
      if (object?.kind !== 'APIService') continue;
      holdsApiService = true;
      const target = object.spec?.service;
      if (target?.name !== service || target.namespace !== namespace) {
        throw new Error(
          `${file}: APIService ${String(object.metadata?.name)} routes to ${String(target?.name)}.${String(target?.namespace)}, not ${service}.${namespace}: ` +
            'a certificate for one would not verify for the other (edit the manifests or pass --service and --namespace)',
        );
      }
    }
    if (holdsApiService) found.push({ file, text });
  }
  if (found.length === 0) throw new Error(`no APIService manifest in ${dir}`);
  return found;
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}
