/**
 * The manifests in apiservice/ that register Cairn behind kube-apiserver, and `npm run
 * certs`, which issues the serving certificate they need. (Applying them to a real
 * kube-apiserver is the control-plane suite's job; these tests need none.)
 */
import { execFile } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';
import { promisify } from 'node:util';
import * as prettier from 'prettier';
import { parse, parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { servingCertSecretFile, servingCertSecretName } from '../../src/server/apiservice-certs.js';
import { parseConfig } from '../../src/server/config.js';
import { startTestServer } from '../support/test-server.js';

const root = join(import.meta.dirname, '..', '..');
const manifestsDir = join(root, 'apiservice');
const service = 'cairn-apiserver';
const namespace = 'cairn-system';
const serviceDns = `${service}.${namespace}.svc`;

/** kube-apiserver's names of the front-proxy flags, as the aggregator's ConfigMap lists them. */
const requestHeaderFlags = [
  '--requestheader-client-ca-file',
  '--requestheader-allowed-names',
  '--requestheader-username-headers',
  '--requestheader-uid-headers',
  '--requestheader-group-headers',
  '--requestheader-extra-headers-prefix',
];

/** Every object of every manifest file in `dir` (the generated Secret left out unless asked), with its file. */
async function readManifests(dir: string, options: { generated?: boolean } = {}): Promise<{ file: string; object: any }[]> {
  const objects: { file: string; object: any }[] = [];
  for (const file of (await readdir(dir)).filter((name) => /\.ya?ml$/.test(name)).sort()) {
    if (file === servingCertSecretFile && !options.generated) continue;
    for (const document of parseAllDocuments(await readFile(join(dir, file), 'utf8'))) {
      expect(document.errors, file).toEqual([]);
      objects.push({ file, object: document.toJS() });
    }
  }
  return objects;
}

function only(objects: readonly { object: any }[], kind: string, name?: string): any {
  const found = objects.filter(({ object }) => object.kind === kind && (name === undefined || object.metadata.name === name)).map(({ object }) => object);
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0];
}

/** `--flag=value` → value, for the one use of `flag` in `args`. */
function flagValue(args: readonly string[], flag: string): string {
  const uses = args.filter((arg) => arg.startsWith(`${flag}=`));
  expect(uses, flag).toHaveLength(1);
  return uses[0].slice(flag.length + 1);
}

const fromBase64 = (text: string): string => Buffer.from(text, 'base64').toString('utf8');

describe('the manifests in apiservice/', () => {
  let objects: { file: string; object: any }[];
  let deployment: any;
  let container: any;
  beforeAll(async () => {
    objects = await readManifests(manifestsDir);
    deployment = only(objects, 'Deployment', service);
    container = deployment.spec.template.spec.containers[0];
  });

  it('are YAML objects, each with apiVersion, kind and metadata, namespaced ones in a namespace', () => {
    const clusterScoped = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'APIService']);
    expect(objects.length).toBeGreaterThan(0);
    for (const { file, object } of objects) {
      expect(object, file).toMatchObject({ apiVersion: expect.any(String), kind: expect.any(String), metadata: { name: expect.any(String) } });
      if (clusterScoped.has(object.kind)) expect(object.metadata.namespace, file).toBeUndefined();
      else expect(object.metadata.namespace, `${file}: ${object.kind}`).toEqual(expect.any(String));
    }
    // kubectl apply -f apiservice/ goes file by file in name order: the Namespace first.
    expect(objects[0].object).toMatchObject({ kind: 'Namespace', metadata: { name: namespace } });
  });

  it('register every served version of cairn.dev with the Service, one APIService each, v1 the highest priority', () => {
    const apiServices = objects.filter(({ object }) => object.kind === 'APIService').map(({ object }) => object);
    // One per served version, none for a version Cairn does not serve: the aggregator proxies a version only through its APIService.
    expect(apiServices.map((a) => a.metadata.name).sort()).toEqual(cairnGroup.versions.map((v) => `${v}.${cairnGroup.name}`).sort());
    const svc = only(objects, 'Service', service);
    for (const apiService of apiServices) {
      expect(apiService.apiVersion).toBe('apiregistration.k8s.io/v1');
      expect(apiService.spec).toMatchObject({
        group: cairnGroup.name,
        version: apiService.metadata.name.split('.')[0],
        service: { name: svc.metadata.name, namespace: svc.metadata.namespace, port: svc.spec.ports[0].port },
      });
      expect(apiService.spec.insecureSkipTLSVerify).toBeUndefined();
      expect(Number.isInteger(apiService.spec.versionPriority) && apiService.spec.versionPriority > 0, apiService.metadata.name).toBe(true);
    }
    // kube-apiserver orders a group by groupPriorityMinimum of its APIServices: one value, or the group's rank would depend on the version.
    expect(new Set(apiServices.map((a) => a.spec.groupPriorityMinimum))).toEqual(new Set([apiServices[0].spec.groupPriorityMinimum]));
    // Its discovery lists a group's versions by versionPriority, highest first, and the first is the preferred one: the order
    // Cairn serves them in (v1, v1beta1, v1alpha1), with no ties (a tie falls back to kube's version-name order).
    const byPriority = [...apiServices].sort((a, b) => b.spec.versionPriority - a.spec.versionPriority);
    expect(byPriority.map((a) => a.spec.version)).toEqual([...cairnGroup.versions]);
    expect(byPriority[0].spec.version).toBe('v1');
    expect(new Set(apiServices.map((a) => a.spec.versionPriority)).size).toBe(apiServices.length);
  });

  it('run two replicas as the ServiceAccount, probing /readyz and /livez over HTTPS on the port Cairn listens on', () => {
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.template.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels);
    expect(deployment.spec.template.spec.serviceAccountName).toBe(only(objects, 'ServiceAccount', service).metadata.name);
    const config = parseConfig(container.args, {});
    expect(config).toMatchObject({ command: 'start', port: 8443, bindAddress: '0.0.0.0', controller: false });
    const port = container.ports.find((p: any) => p.containerPort === config.port);
    expect(port).toBeDefined();
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: port.name, scheme: 'HTTPS' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/livez', port: port.name, scheme: 'HTTPS' });
    const svc = only(objects, 'Service', service);
    expect(deployment.spec.template.metadata.labels).toMatchObject(svc.spec.selector);
    expect([port.name, port.containerPort]).toContain(svc.spec.ports[0].targetPort);
    // The data directory (generated client CA, kubeconfig) must be writable under a read-only root.
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(mountedVolume(config.dataDir).emptyDir).toEqual({});
  });

  /** The volume mounted at the folder holding `path`. */
  function mountedVolume(path: string): any {
    const mount = container.volumeMounts.find((m: any) => path === m.mountPath || path.startsWith(`${m.mountPath}/`));
    expect(mount, path).toBeDefined();
    return deployment.spec.template.spec.volumes.find((v: any) => v.name === mount.name);
  }

  it('serve the certificate npm run certs puts in a Secret, from the files kube-apiserver names its flags after', () => {
    const certFile = flagValue(container.args, '--tls-cert-file');
    const keyFile = flagValue(container.args, '--tls-private-key-file');
    expect(mountedVolume(certFile).secret.secretName).toBe(servingCertSecretName);
    expect(mountedVolume(keyFile).secret.secretName).toBe(servingCertSecretName);
    expect([certFile.split('/').at(-1), keyFile.split('/').at(-1)]).toEqual(['tls.crt', 'tls.key']);
  });

  it('trust the front proxy with kube-apiserver’s --requestheader-* flags, its CA from a mounted file', () => {
    const used = container.args.filter((arg: string) => arg.startsWith('--requestheader-')).map((arg: string) => arg.split('=')[0]);
    expect(used.sort()).toEqual([...requestHeaderFlags].sort());
    const { requestHeader } = parseConfig(container.args, {});
    expect(requestHeader).toMatchObject({
      usernameHeaders: ['X-Remote-User'],
      uidHeaders: ['X-Remote-Uid'],
      groupHeaders: ['X-Remote-Group'],
      extraHeaderPrefixes: ['X-Remote-Extra-'],
      allowedNames: ['front-proxy-client'],
    });
    expect(mountedVolume(requestHeader.clientCaFile!).configMap.name).toEqual(expect.any(String));
  });

  it('read DATABASE_URL from the database Secret', () => {
    const env = container.env.find((e: any) => e.name === 'DATABASE_URL');
    const secret = only(objects, 'Secret', env.valueFrom.secretKeyRef.name);
    expect(secret.metadata.namespace).toBe(deployment.metadata.namespace);
    expect(secret.stringData[env.valueFrom.secretKeyRef.key]).toMatch(/^postgres(ql)?:\/\//);
  });

  it('bind the ServiceAccount to system:auth-delegator, in kube-system to extension-apiserver-authentication-reader, and to get namespaces', () => {
    const subject = { kind: 'ServiceAccount', name: service, namespace };
    const delegator = objects.map(({ object }) => object).find((o) => o.kind === 'ClusterRoleBinding' && o.roleRef.name === 'system:auth-delegator');
    expect(delegator).toMatchObject({ roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole' }, subjects: [subject] });
    const reader = objects.map(({ object }) => object).find((o) => o.kind === 'RoleBinding' && o.roleRef.name === 'extension-apiserver-authentication-reader');
    expect(reader).toMatchObject({
      metadata: { namespace: 'kube-system' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role' },
      subjects: [subject],
    });
    // NamespaceLifecycle's one GET per namespace.
    const all = objects.map(({ object }) => object);
    const readers = all
      .filter(
        (o) =>
          o.kind === 'ClusterRole' &&
          o.rules.some((rule: any) => rule.apiGroups.includes('') && rule.resources.includes('namespaces') && rule.verbs.includes('get')),
      )
      .map((role) => role.metadata.name);
    const bound = all.find((o) => o.kind === 'ClusterRoleBinding' && readers.includes(o.roleRef.name));
    expect(bound, `a ClusterRoleBinding to one of ${readers.join(', ')}`).toMatchObject({ roleRef: { kind: 'ClusterRole' }, subjects: [subject] });
  });

  it('give the default view role read access and edit and admin write access to cairn.dev', () => {
    const roles = objects.map(({ object }) => object).filter((o) => o.kind === 'ClusterRole');
    const aggregatedTo = (role: string) => roles.filter((r) => r.metadata.labels?.[`rbac.authorization.k8s.io/aggregate-to-${role}`] === 'true');
    const verbs = (role: string, resource: string) =>
      new Set(
        aggregatedTo(role).flatMap((r) =>
          r.rules.filter((rule: any) => rule.apiGroups.includes('cairn.dev') && rule.resources.includes(resource)).flatMap((rule: any) => rule.verbs),
        ),
      );
    for (const resource of ['pipelines', 'pipelines/status', 'pipelines/scale', 'pipelines/log', 'runnerclasses']) {
      expect([...verbs('view', resource)].sort(), resource).toEqual(['get', 'list', 'watch']);
    }
    for (const role of ['edit', 'admin']) {
      expect([...verbs(role, 'pipelines')].sort()).toEqual(['create', 'delete', 'deletecollection', 'patch', 'update']);
      expect([...verbs(role, 'pipelines/scale')].sort()).toEqual(['patch', 'update']);
      expect([...verbs(role, 'pipelines/log')]).toEqual(['create']);
    }
  });
});

describe('npm run certs', () => {
  const run = promisify(execFile);
  let dir: string;
  /** Runs the package's `certs` script (`npm run certs -- ARGS`) on a copy of the manifests. */
  async function certs(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const script = (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.certs;
    const [command, ...scriptArgs] = script.split(' ');
    try {
      const { stdout, stderr } = await run(join(root, 'node_modules/.bin', command), [...scriptArgs, ...args, '--manifests', join(dir, 'apiservice')], {
        cwd: root,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }
  let leaf: X509Certificate;
  let caBundlePem: string;
  let secret: any;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-certs-'));
    await cp(manifestsDir, join(dir, 'apiservice'), { recursive: true, filter: (source) => !source.includes(`${manifestsDir}/certs`) });
    await rm(join(dir, 'apiservice', servingCertSecretFile), { force: true });
    const result = await certs('--service', service, '--namespace', namespace);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const objects = await readManifests(join(dir, 'apiservice'), { generated: true });
    secret = only(objects, 'Secret', servingCertSecretName);
    leaf = new X509Certificate(fromBase64(secret.data['tls.crt']));
    const bundles = objects.filter(({ object }) => object.kind === 'APIService').map(({ object }) => object.spec.caBundle);
    // Every APIService, in whichever file: one without a caBundle would never become Available.
    expect(bundles).toHaveLength(cairnGroup.versions.length);
    expect(bundles.every((bundle) => typeof bundle === 'string' && bundle !== '')).toBe(true);
    expect(new Set(bundles).size).toBe(1);
    caBundlePem = fromBase64(bundles[0]);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('issues a serving certificate for the Service’s names, as the aggregator dials it, and for loopback', () => {
    const sans = leaf.subjectAltName?.split(', ') ?? [];
    expect(sans).toEqual(
      expect.arrayContaining([`DNS:${serviceDns}`, `DNS:${service}.${namespace}`, `DNS:${service}`, 'DNS:localhost', 'IP Address:127.0.0.1']),
    );
    expect(leaf.checkHost(serviceDns, { subject: 'never' })).toBe(serviceDns);
    expect(leaf.ca).toBe(false);
    expect(leaf.keyUsage).toContain('1.3.6.1.5.5.7.3.1'); // serverAuth
  });

  it('puts into every APIService a caBundle that verifies the serving certificate', () => {
    const ca = new X509Certificate(caBundlePem);
    expect(ca.ca).toBe(true);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
  });

  it('writes the Secret the Deployment mounts: the certificate with its CA after it, and the matching key', async () => {
    const deployment = only(await readManifests(manifestsDir), 'Deployment', service);
    expect(secret).toMatchObject({ type: 'kubernetes.io/tls', metadata: { namespace: deployment.metadata.namespace } });
    expect(deployment.spec.template.spec.volumes.map((v: any) => v.secret?.secretName)).toContain(secret.metadata.name);
    const chain = fromBase64(secret.data['tls.crt']);
    expect(chain.endsWith(caBundlePem)).toBe(true);
    expect(fromBase64(secret.data['ca.crt'])).toBe(caBundlePem);
    expect(leaf.checkPrivateKey(createPrivateKey(fromBase64(secret.data['tls.key'])))).toBe(true);
  });

  it('leaves the manifests formatted as prettier formats them, and keeps the CA and certificate on a second run', async () => {
    const apiServiceFiles = [...new Set((await readManifests(manifestsDir)).filter(({ object }) => object.kind === 'APIService').map(({ file }) => file))];
    expect(apiServiceFiles).toHaveLength(cairnGroup.versions.length);
    const written = async (file: string): Promise<string> => readFile(join(dir, 'apiservice', file), 'utf8');
    const before = new Map<string, string>();
    for (const file of apiServiceFiles) {
      const text = await written(file);
      const options = await prettier.resolveConfig(join(manifestsDir, file));
      expect(await prettier.check(text, { ...options, parser: 'yaml' }), file).toBe(true);
      // The file as committed, comments included, with only the caBundle added at the end.
      expect(text.startsWith((await readFile(join(manifestsDir, file), 'utf8')).trimEnd()), file).toBe(true);
      before.set(file, text);
    }
    expect((await certs('--service', service, '--namespace', namespace)).code).toBe(0);
    for (const file of apiServiceFiles) expect(await written(file), file).toBe(before.get(file));
    const again = only(await readManifests(join(dir, 'apiservice'), { generated: true }), 'Secret', servingCertSecretName);
    expect(again.data).toEqual(secret.data);
  });

  it('refuses a Service the APIServices do not route to, whose certificate the aggregator would reject', async () => {
    const result = await certs('--service', service, '--namespace', 'elsewhere');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`routes to ${service}.${namespace}, not ${service}.elsewhere`);
  });

  it('is what Cairn serves with --tls-cert-file and --tls-private-key-file: verified for the Service name with the caBundle', async () => {
    await writeFile(join(dir, 'tls.crt'), fromBase64(secret.data['tls.crt']));
    await writeFile(join(dir, 'tls.key'), fromBase64(secret.data['tls.key']), { mode: 0o600 });
    const server = await startTestServer({
      backend: 'postgres',
      args: ['--tls-cert-file', join(dir, 'tls.crt'), '--tls-private-key-file', join(dir, 'tls.key')],
    });
    try {
      // As kube-apiserver's proxy dials it: caBundle as the only root, ServerName <service>.<namespace>.svc.
      const presented = await new Promise<tls.PeerCertificate>((resolve, reject) => {
        const socket = tls.connect({ host: '127.0.0.1', port: server.port, servername: serviceDns, ca: caBundlePem, ALPNProtocols: ['h2'] }, () => {
          resolve(socket.getPeerCertificate());
          socket.end();
        });
        socket.on('error', reject);
      });
      expect(presented.fingerprint256).toBe(leaf.fingerprint256);
      // The admin kubeconfig it writes trusts that CA.
      const kubeconfig = parse(await readFile(server.kubeconfigPath, 'utf8'));
      expect(fromBase64(kubeconfig.clusters[0].cluster['certificate-authority-data'])).toBe(caBundlePem);
      expect((await server.request('GET', '/apis/cairn.dev/v1/runnerclasses')).status).toBe(200);
    } finally {
      await server.destroy();
    }
  });
});
