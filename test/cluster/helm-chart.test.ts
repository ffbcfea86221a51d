/**
 * charts/cairn: `helm lint` passes; `helm template` with the default values renders the
 * objects apiservice/ holds, object by object (Helm's labels, the anti-affinity and the
 * PodDisruptionBudget added), so the two ways to install never drift apart; each option
 * renders what it says (caBundle, cert-manager, database URL, a PostgreSQL for trying it);
 * values.schema.json refuses a bad value. Against the test control plane, the rendered
 * objects pass `kubectl apply --dry-run=server` (cert-manager's with its CRDs registered)
 * and `helm install` creates them, the APIServices naming the chart's Service.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { servingCertSecretName } from '../../src/server/apiservice-certs.js';
import { ensureServingPki } from '../../src/server/pki.js';
import { readTracingConfiguration } from '../../src/server/tracing-configuration.js';
import { cairnApiServices, cairnNamespace, cairnService } from '../support/aggregated-cairn.js';
import { cairnChart, renderChart, runHelm } from '../support/helm.js';
import { kubectlAvailable } from '../support/kubectl.js';
import { kubectlOk, sharedKubeControlPlane } from '../support/shared-control-plane.js';

const helm = inject('goPrograms').helm;
const manifestsDir = join(import.meta.dirname, '..', '..', 'apiservice');

/** Labels Helm's conventions add to what apiservice/ labels. */
const helmLabels = ['helm.sh/chart', 'app.kubernetes.io/instance', 'app.kubernetes.io/managed-by', 'app.kubernetes.io/version'];

const key = (object: any): string => `${object.kind} ${object.metadata.namespace ?? ''}/${object.metadata.name}`;

/** Every object of apiservice/, comments dropped. */
async function apiserviceObjects(): Promise<any[]> {
  const objects: any[] = [];
  for (const file of (await readdir(manifestsDir)).filter((name) => /^\d\d-.*\.ya?ml$/.test(name)).sort()) {
    for (const document of parseAllDocuments(await readFile(join(manifestsDir, file), 'utf8'))) objects.push(document.toJS());
  }
  return objects;
}

function withoutHelmLabels(labels: Record<string, string> | undefined): Record<string, string> | undefined {
  if (labels === undefined) return undefined;
  return Object.fromEntries(Object.entries(labels).filter(([name]) => !helmLabels.includes(name)));
}

/** A rendered object as apiservice/ would write it: Helm's labels, and the chart's additions to the Deployment, taken off. */
function asApiservice(object: any): any {
  const copy = structuredClone(object);
  copy.metadata.labels = withoutHelmLabels(copy.metadata.labels);
  if (copy.kind === 'Service') copy.spec.selector = withoutHelmLabels(copy.spec.selector);
  if (copy.kind === 'Deployment') {
    copy.spec.selector.matchLabels = withoutHelmLabels(copy.spec.selector.matchLabels);
    copy.spec.template.metadata.labels = withoutHelmLabels(copy.spec.template.metadata.labels);
    delete copy.spec.template.metadata.annotations;
    delete copy.spec.template.spec.affinity;
  }
  return copy;
}

function only(objects: readonly any[], kind: string, name?: string): any {
  const found = objects.filter((object) => object.kind === kind && (name === undefined || object.metadata.name === name));
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0];
}

const container = (objects: readonly any[]): any => only(objects, 'Deployment', cairnService).spec.template.spec.containers[0];

describe('charts/cairn', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'cairn-chart-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('passes helm lint with the default values and with every option on', async () => {
    for (const args of [
      [],
      ['--set', 'tls.certManager.enabled=true', '--set', 'postgresql.enabled=true', '--set', 'replicas=3', '--set', 'tracing.enabled=true'],
    ]) {
      const result = await runHelm(helm, ['lint', '--strict', cairnChart, ...args]);
      expect(result.code, `${result.stdout}${result.stderr}`).toBe(0);
      expect(result.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    }
  });

  it('renders with the default values what apiservice/ holds, object by object, but for the Secrets and Namespace it leaves to the operator', async () => {
    const rendered = await renderChart(helm);
    const expected = new Map((await apiserviceObjects()).map((object) => [key(object), object]));
    // The namespace is helm install's (--create-namespace); the database's Secret, and the serving certificate's, are the operator's.
    for (const left of [`Namespace /${cairnNamespace}`, `Secret ${cairnNamespace}/cairn-database`]) expect(expected.delete(left), left).toBe(true);
    const added = [`PodDisruptionBudget ${cairnNamespace}/${cairnService}`];
    expect(rendered.map(key).sort()).toEqual([...expected.keys(), ...added].sort());
    for (const object of rendered.filter((o) => !added.includes(key(o)))) expect(asApiservice(object), key(object)).toEqual(expected.get(key(object)));
    // What apiservice/ names the chart reads: the Secrets npm run certs and 20-database-secret.yaml create.
    const volumes = only(rendered, 'Deployment', cairnService).spec.template.spec.volumes;
    expect(volumes.find((v: any) => v.name === 'serving-cert').secret.secretName).toBe(servingCertSecretName);
    expect(container(rendered).env[0].valueFrom.secretKeyRef).toEqual({ name: 'cairn-database', key: 'url' });
    // One APIService per version Cairn serves.
    expect(
      rendered
        .filter((o) => o.kind === 'APIService')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual([...cairnApiServices].sort());
    expect(cairnGroup.versions).toEqual(['v1', 'v1beta1', 'v1alpha1']);
  });

  it('adds replicas on different nodes where it can, and a PodDisruptionBudget over the same pods', async () => {
    const rendered = await renderChart(helm, ['--set', 'replicas=3']);
    const deployment = only(rendered, 'Deployment', cairnService);
    expect(deployment.spec.replicas).toBe(3);
    const [term] = deployment.spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution;
    expect(term.podAffinityTerm).toEqual({ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: deployment.spec.selector.matchLabels } });
    const budget = only(rendered, 'PodDisruptionBudget', cairnService);
    expect(budget.spec).toEqual({ maxUnavailable: 1, selector: { matchLabels: deployment.spec.selector.matchLabels } });
    expect(deployment.spec.template.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels);
    expect(deployment.spec.selector.matchLabels).toEqual(only(rendered, 'Service', cairnService).spec.selector);
    expect(await renderChart(helm, ['--set', 'podDisruptionBudget.enabled=false'])).not.toContainEqual(
      expect.objectContaining({ kind: 'PodDisruptionBudget' }),
    );
  });

  it('with tracing enabled, passes Cairn a TracingConfiguration it reads from a ConfigMap it mounts', async () => {
    const rendered = await renderChart(helm, [
      '--set',
      'tracing.enabled=true',
      '--set',
      'tracing.endpoint=otel-collector.observability:4317',
      '--set',
      'tracing.samplingRatePerMillion=10000',
    ]);
    const configMap = only(rendered, 'ConfigMap', `${cairnService}-tracing`);
    const flag = container(rendered).args.find((arg: string) => arg.startsWith('--tracing-config-file='));
    const mount = container(rendered).volumeMounts.find((m: any) => m.name === 'tracing');
    const volume = only(rendered, 'Deployment', cairnService).spec.template.spec.volumes.find((v: any) => v.name === 'tracing');
    expect(volume.configMap.name).toBe(configMap.metadata.name);
    const file = flag.slice('--tracing-config-file='.length);
    expect(file).toBe(`${mount.mountPath}/tracing-config.yaml`);
    // What Cairn reads from it at startup.
    const local = join(scratch, 'tracing-config.yaml');
    await writeFile(local, configMap.data['tracing-config.yaml']);
    expect(await readTracingConfiguration(local)).toEqual({ endpoint: 'otel-collector.observability:4317', samplingRatePerMillion: 10000 });
    expect(container(await renderChart(helm)).args.some((arg: string) => arg.startsWith('--tracing-config-file'))).toBe(false);
  });

  it('puts the CA given as apiService.caBundle into every APIService', async () => {
    // As npm run certs leaves it in apiservice/certs/.
    const pem = (await ensureServingPki(join(scratch, 'certs'), { hosts: [`${cairnService}.${cairnNamespace}.svc`] })).caPem;
    const file = join(scratch, 'ca.crt');
    await writeFile(file, pem);
    const rendered = await renderChart(helm, ['--set-file', `apiService.caBundle=${file}`]);
    const bundles = rendered.filter((o) => o.kind === 'APIService').map((o) => o.spec.caBundle);
    expect(bundles).toEqual(cairnApiServices.map(() => Buffer.from(pem).toString('base64')));
  });

  it('with cert-manager, has a Certificate for the Service names issued into the Secret Cairn mounts, and cainjector fill the caBundles', async () => {
    const rendered = await renderChart(helm, ['--set', 'tls.certManager.enabled=true']);
    const certificate = only(rendered, 'Certificate', `${cairnService}-serving`);
    expect(certificate.spec.secretName).toBe(servingCertSecretName);
    expect(certificate.spec.dnsNames).toEqual(
      expect.arrayContaining([`${cairnService}.${cairnNamespace}.svc`, `${cairnService}.${cairnNamespace}`, cairnService]),
    );
    // No issuer given: the release's own self-signed one, whose certificate is its own CA.
    const issuer = only(rendered, 'Issuer');
    expect(issuer.spec).toEqual({ selfSigned: {} });
    expect(certificate.spec.issuerRef).toEqual({ name: issuer.metadata.name, kind: 'Issuer', group: 'cert-manager.io' });
    for (const apiService of rendered.filter((o) => o.kind === 'APIService')) {
      expect(apiService.metadata.annotations).toEqual({ 'cert-manager.io/inject-ca-from': `${cairnNamespace}/${certificate.metadata.name}` });
      expect(apiService.spec.caBundle).toBeUndefined();
    }
    const withIssuer = await renderChart(helm, [
      '--set',
      'tls.certManager.enabled=true',
      '--set',
      'tls.certManager.issuerRef.name=corp-ca',
      '--set',
      'tls.certManager.issuerRef.kind=ClusterIssuer',
    ]);
    expect(withIssuer).not.toContainEqual(expect.objectContaining({ kind: 'Issuer' }));
    expect(only(withIssuer, 'Certificate').spec.issuerRef).toEqual({ name: 'corp-ca', kind: 'ClusterIssuer', group: 'cert-manager.io' });
  });

  it('reads DATABASE_URL from database.url kept in a Secret of its own, or from the PostgreSQL it runs with postgresql.enabled', async () => {
    const url = 'postgres://cairn:secret@db.example:5432/cairn';
    const withUrl = await renderChart(helm, ['--set', `database.url=${url}`]);
    const ref = container(withUrl).env[0].valueFrom.secretKeyRef;
    expect(only(withUrl, 'Secret', ref.name).stringData[ref.key]).toBe(url);

    const withPostgres = await renderChart(helm, ['--set', 'postgresql.enabled=true']);
    const postgresRef = container(withPostgres).env[0].valueFrom.secretKeyRef;
    const secret = only(withPostgres, 'Secret', postgresRef.name);
    const statefulSet = only(withPostgres, 'StatefulSet');
    const service = only(withPostgres, 'Service', `${cairnService}-postgresql`);
    expect(secret.stringData.password).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(secret.stringData[postgresRef.key]).toBe(`postgres://cairn:${secret.stringData.password}@${service.metadata.name}.${cairnNamespace}.svc:5432/cairn`);
    expect(statefulSet.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    expect(statefulSet.spec.template.spec.containers[0].env).toContainEqual({
      name: 'POSTGRES_PASSWORD',
      valueFrom: { secretKeyRef: { name: secret.metadata.name, key: 'password' } },
    });
    // Cairn's Service and Deployment never select the database's pod, nor its Service Cairn's.
    const cairnSelector = only(withPostgres, 'Deployment', cairnService).spec.selector.matchLabels;
    const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);
    expect(matches(cairnSelector, statefulSet.spec.template.metadata.labels)).toBe(false);
    expect(matches(service.spec.selector, only(withPostgres, 'Deployment', cairnService).spec.template.metadata.labels)).toBe(false);
  });

  it('behind a transaction pooler, says so to Cairn and gives it the direct URL from the same Secret', async () => {
    const env = container(await renderChart(helm, ['--set', 'database.pooler=transaction', '--set', 'database.listenSecretKey=direct-url'])).env;
    expect(env).toContainEqual({ name: 'DATABASE_POOLER', value: 'transaction' });
    expect(env).toContainEqual({ name: 'DATABASE_LISTEN_URL', valueFrom: { secretKeyRef: { name: 'cairn-database', key: 'direct-url' } } });
    const plain = container(await renderChart(helm)).env.map((variable: { name: string }) => variable.name);
    expect(plain).toEqual(['DATABASE_URL', 'WORKERS']);
  });

  it('refuses values its schema does not allow, naming them', async () => {
    for (const [args, message] of [
      [['--set', 'replicas=0'], "at '/replicas': minimum: got 0, want 1"],
      [['--set', 'replica=3'], "additional properties 'replica' not allowed"],
      [['--set', 'database.url=mysql://x'], "at '/database/url'"],
      [['--set', 'tls.certManager.issuerRef.kind=Cluster'], "at '/tls/certManager/issuerRef/kind'"],
      [['--set', 'extraArgs[0]=event-retention=7d'], "at '/extraArgs/0'"],
      [['--set', 'tracing.samplingRatePerMillion=1000001'], "at '/tracing/samplingRatePerMillion'"],
      [['--set', 'database.pooler=session'], "at '/database/pooler'"],
    ] as const) {
      const result = await runHelm(helm, ['template', 'cairn', cairnChart, ...args]);
      expect(result.code, args.join(' ')).not.toBe(0);
      expect(result.stderr, args.join(' ')).toContain("values don't meet the specifications of the schema");
      expect(result.stderr, args.join(' ')).toContain(message);
    }
  });

  it('documents every value in values.schema.json, and every value there has a default in values.yaml', async () => {
    const schema = JSON.parse(await readFile(join(cairnChart, 'values.schema.json'), 'utf8'));
    const values = parseAllDocuments(await readFile(join(cairnChart, 'values.yaml'), 'utf8'))[0].toJS();
    const undocumented: string[] = [];
    const withoutDefault: string[] = [];
    const visit = (node: any, value: any, path: string): void => {
      if (node.description === undefined) undocumented.push(path);
      if (value === undefined) withoutDefault.push(path);
      // issuerRef's fields are cert-manager's, empty by default.
      if (node.properties === undefined || path.endsWith('/issuerRef')) return;
      for (const [name, child] of Object.entries<any>(node.properties)) visit(child, value?.[name], `${path}/${name}`);
    };
    for (const [name, child] of Object.entries<any>(schema.properties)) visit(child, values[name], `/${name}`);
    expect(undocumented).toEqual([]);
    expect(withoutDefault).toEqual([]);
    // And nothing in values.yaml escapes the schema (additionalProperties: false at every level, checked by helm above).
    expect(Object.keys(values).sort()).toEqual(Object.keys(schema.properties).sort());
  });
});

/** The CRDs of cert-manager's two kinds the chart renders, as small as kube-apiserver accepts. */
const certManagerCrds = ['Certificate', 'Issuer'].map((kind) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${kind.toLowerCase()}s.cert-manager.io` },
  spec: {
    group: 'cert-manager.io',
    names: { kind, listKind: `${kind}List`, plural: `${kind.toLowerCase()}s`, singular: kind.toLowerCase() },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
}));

describe.runIf(kubectlAvailable)('charts/cairn against the test control plane (needs kubectl on PATH)', () => {
  const plane = sharedKubeControlPlane();

  /** Applies what the chart renders with `args`, server-side dry run: kube-apiserver validates every object and admits none. */
  async function dryRun(name: string, args: readonly string[]): Promise<string[]> {
    const file = join(plane().directory, `${name}.yaml`);
    await writeFile(file, (await renderChart(helm, args)).map((object) => `---\n${stringify(object)}`).join(''));
    const applied = await kubectlOk(plane(), 'apply', '--dry-run=server', '-f', file);
    return applied.stdout.trim().split('\n');
  }

  it('has kube-apiserver accept every rendered object (server-side dry run), with the default values and with cert-manager', async () => {
    await kubectlOk(plane(), 'create', 'namespace', cairnNamespace);
    const lines = await dryRun('default', []);
    expect(lines).toContain(`deployment.apps/${cairnService} created (server dry run)`);
    for (const name of cairnApiServices) expect(lines).toContain(`apiservice.apiregistration.k8s.io/${name} created (server dry run)`);
    expect(lines).toHaveLength((await renderChart(helm)).length);

    // Without cert-manager's CRDs the kinds are unknown; with them, its objects are accepted too.
    const crds = join(plane().directory, 'cert-manager-crds.yaml');
    await writeFile(crds, certManagerCrds.map((crd) => `---\n${stringify(crd)}`).join(''));
    await kubectlOk(plane(), 'apply', '-f', crds);
    await kubectlOk(plane(), 'wait', '--for=condition=Established', '--timeout=60s', 'crd/certificates.cert-manager.io', 'crd/issuers.cert-manager.io');
    const certManagerLines = await dryRun('cert-manager', ['--set', 'tls.certManager.enabled=true', '--set', 'postgresql.enabled=true']);
    expect(certManagerLines).toContain(`certificate.cert-manager.io/${cairnService}-serving created (server dry run)`);
    expect(certManagerLines).toContain(`issuer.cert-manager.io/${cairnService}-selfsigned created (server dry run)`);
    expect(certManagerLines).toContain(`statefulset.apps/${cairnService}-postgresql created (server dry run)`);
  });

  it('helm install creates the objects, the APIServices naming the chart’s Service (no node runs the pods here)', async () => {
    const env = plane().kubectlEnv();
    const installed = await runHelm(helm, ['install', 'cairn', cairnChart, '--namespace', cairnNamespace, '--create-namespace'], env);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('STATUS: deployed');
    const deployment = JSON.parse((await kubectlOk(plane(), '-n', cairnNamespace, 'get', 'deployment', cairnService, '-o', 'json')).stdout);
    expect(deployment.metadata.labels).toMatchObject({ 'app.kubernetes.io/managed-by': 'Helm', 'app.kubernetes.io/instance': 'cairn' });
    expect(deployment.metadata.annotations).toMatchObject({ 'meta.helm.sh/release-name': 'cairn', 'meta.helm.sh/release-namespace': cairnNamespace });
    const service = JSON.parse((await kubectlOk(plane(), '-n', cairnNamespace, 'get', 'service', cairnService, '-o', 'json')).stdout);
    for (const name of cairnApiServices) {
      const apiService = JSON.parse((await kubectlOk(plane(), 'get', 'apiservice', name, '-o', 'json')).stdout);
      expect(apiService.spec.service).toEqual({ name: service.metadata.name, namespace: cairnNamespace, port: service.spec.ports[0].port });
    }
    await kubectlOk(plane(), '-n', cairnNamespace, 'get', 'serviceaccount', cairnService);
    await kubectlOk(plane(), '-n', cairnNamespace, 'get', 'poddisruptionbudget', cairnService);
    await kubectlOk(plane(), '-n', 'kube-system', 'get', 'rolebinding', `${cairnService}:extension-apiserver-authentication-reader`);
    await kubectlOk(plane(), 'get', 'clusterrole', 'cairn-view', `${cairnService}:webhook-configuration-reader`);
    // An upgrade that turns on the PostgreSQL for trying it, then another: the generated password stays, or the data would be locked out.
    const password = async (): Promise<string> =>
      Buffer.from(
        JSON.parse((await kubectlOk(plane(), '-n', cairnNamespace, 'get', 'secret', `${cairnService}-postgresql`, '-o', 'json')).stdout).data.password,
        'base64',
      ).toString('utf8');
    const upgraded = await runHelm(helm, ['upgrade', 'cairn', cairnChart, '--namespace', cairnNamespace, '--set', 'postgresql.enabled=true'], env);
    expect(upgraded.code, upgraded.stderr).toBe(0);
    const generated = await password();
    expect(generated).toMatch(/^[A-Za-z0-9]{32}$/);
    const again = await runHelm(helm, ['upgrade', 'cairn', cairnChart, '--namespace', cairnNamespace, '--reuse-values', '--set', 'replicas=3'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(await password()).toBe(generated);
    expect(JSON.parse((await kubectlOk(plane(), '-n', cairnNamespace, 'get', 'deployment', cairnService, '-o', 'json')).stdout).spec.replicas).toBe(3);
    const listed = await runHelm(helm, ['list', '--namespace', cairnNamespace, '-o', 'json'], env);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'cairn', status: 'deployed', chart: 'cairn-0.1.0' }]);
    const uninstalled = await runHelm(helm, ['uninstall', 'cairn', '--namespace', cairnNamespace], env);
    expect(uninstalled.code, uninstalled.stderr).toBe(0);
    expect((await plane().kubectl(['get', 'apiservice', cairnApiServices[0]])).code).not.toBe(0);
  });
});
