/**
 * Cairn in a cluster, against a real kube-apiserver 1.34: authentication and
 * authorization delegated as k8s.io/apiserver's delegating options do (TokenReview,
 * SubjectAccessReview with short cache TTLs, always-allow paths), the client and
 * front-proxy trust read from `kube-system/extension-apiserver-authentication` and
 * re-read when it changes, and NamespaceLifecycle asking the cluster about namespaces.
 * Cairn authenticates to kube-apiserver as `CN=cairn`, with the bindings every aggregated
 * API server gets (system:auth-delegator, extension-apiserver-authentication-reader) and
 * `get namespaces`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { ensurePki, issueClientCertificate } from '../../src/server/pki.js';
import { cairnDelegationKubeconfig } from '../support/cairn-identity.js';
import { startKubeControlPlane, type KubeControlPlane } from '../support/kube-control-plane.js';
import { kubectlAvailable, type RunResult } from '../support/kubectl.js';
import { pipeline, startTestServer, type RequestOptions, type TestResponse, type TestServer } from '../support/test-server.js';
import { bearer, eventually as eventuallyAnswers } from '../support/delegation.js';
import { kubectlOk } from '../support/shared-control-plane.js';

const pipelinesPath = (namespace: string) => `/apis/cairn.dev/v1/namespaces/${namespace}/pipelines`;

/** RBAC that lets `subject` read and create Pipelines in namespace default. */
function pipelineAccess(name: string, subject: Record<string, string>) {
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name, namespace: 'default' },
      rules: [{ apiGroups: ['cairn.dev'], resources: ['pipelines'], verbs: ['get', 'list', 'create'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [subject],
    },
  ];
}

describe.runIf(kubectlAvailable)('delegated authentication and authorization against kube-apiserver', () => {
  let plane: KubeControlPlane;
  let cairn: TestServer;
  let dir: string;

  const kubectl = (...args: string[]): Promise<RunResult> => kubectlOk(plane, ...args);
  const apply = async (name: string, objects: readonly object[]) => {
    const file = join(dir, `${name}.yaml`);
    await writeFile(file, objects.map((o) => stringify(o)).join('---\n'));
    await kubectl('apply', '-f', file);
  };
  const eventually = (method: string, path: string, options: RequestOptions, done: (r: TestResponse) => boolean): Promise<TestResponse> =>
    eventuallyAnswers(cairn, method, path, options, done);
  const asAlice = (cert: { certPem: string; keyPem: string }): RequestOptions => ({
    clientCert: cert,
    headers: { 'X-Remote-User': 'alice', 'X-Remote-Group': 'devs' },
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-delegated-'));
    plane = await startKubeControlPlane(inject('goPrograms'));
    // Cairn's identity at kube-apiserver, with the bindings apiservice/ gives its ServiceAccount.
    const kubeconfig = await cairnDelegationKubeconfig(plane, dir);
    cairn = await startTestServer({
      backend: 'pglite',
      // `--garbage-collector=auto`, which a main API server turns off.
      garbageCollector: true,
      args: [
        ['--authentication-kubeconfig', kubeconfig],
        ['--authorization-kubeconfig', kubeconfig],
        ['--authentication-token-webhook-cache-ttl', '1s'],
        ['--authorization-webhook-cache-authorized-ttl', '1s'],
        ['--authorization-webhook-cache-unauthorized-ttl', '500ms'],
        ['--authorization-always-allow-paths', '/healthz,/readyz,/livez,/metrics'],
      ].flat(),
    });
  }, 180_000);

  afterAll(async () => {
    await cairn?.destroy();
    await plane?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('authenticates a ServiceAccount token through TokenReview, and SubjectAccessReview decides until a RoleBinding grants access', async () => {
    await kubectl('-n', 'default', 'create', 'serviceaccount', 'robot');
    const token = (await kubectl('-n', 'default', 'create', 'token', 'robot')).stdout.trim();
    const refused = await cairn.request('GET', pipelinesPath('default'), bearer(token));
    expect(refused.status, refused.text).toBe(403);
    expect(refused.json).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      details: { group: 'cairn.dev', kind: 'pipelines' },
    });
    expect(refused.json.message).toContain(
      'User "system:serviceaccount:default:robot" cannot list resource "pipelines" in API group "cairn.dev" in the namespace "default"',
    );

    await apply('robot-access', pipelineAccess('robot-pipelines', { kind: 'ServiceAccount', name: 'robot', namespace: 'default' }));
    const allowed = await eventually('GET', pipelinesPath('default'), bearer(token), (r) => r.status !== 403);
    expect(allowed.status, allowed.text).toBe(200);
    expect(allowed.json.kind).toBe('PipelineList');
    // Still refused where the Role does not reach: another verb, the cluster scope.
    expect((await cairn.request('DELETE', `${pipelinesPath('default')}/x`, bearer(token))).json.message).toContain(
      'User "system:serviceaccount:default:robot" cannot delete resource "pipelines"',
    );
  });

  it('refuses an unknown bearer token with 401', async () => {
    const response = await cairn.request('GET', pipelinesPath('default'), bearer('not-a-token'));
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  it('serves the always-allow paths without asking SubjectAccessReview', async () => {
    await kubectl('-n', 'default', 'create', 'serviceaccount', 'nobody');
    const token = (await kubectl('-n', 'default', 'create', 'token', 'nobody')).stdout.trim();
    // kube-apiserver's RBAC would refuse it /metrics ...
    const canI = await plane.kubectl(['auth', 'can-i', 'get', '/metrics', '--as', 'system:serviceaccount:default:nobody']);
    expect(canI.stdout.trim()).toBe('no');
    // ... which Cairn serves it, as listed in --authorization-always-allow-paths; health to anyone.
    expect((await cairn.request('GET', '/metrics', bearer(token))).status).toBe(200);
    expect((await cairn.request('GET', '/readyz', { clientCert: null })).status).toBe(200);
    expect((await cairn.request('GET', '/healthz', { clientCert: null })).status).toBe(200);
    // In a cluster, readiness waits for the webhook configurations to be listed, as kube's informer-sync; a check alone is not an allowed path.
    expect((await cairn.request('GET', '/readyz?verbose', { clientCert: null })).text).toContain('[+]informer-sync ok\n');
    expect((await cairn.request('GET', '/readyz/informer-sync', { clientCert: null })).status).toBe(401);
    // A path not listed goes to SubjectAccessReview: anonymous is refused.
    expect((await cairn.request('GET', '/apis', { clientCert: null })).status).toBe(401);
  });

  it('authenticates the front proxy with the request-header settings of the ConfigMap', async () => {
    const refused = await cairn.request('GET', pipelinesPath('default'), asAlice(plane.proxyClient));
    expect(refused.status, refused.text).toBe(403);
    expect(refused.json.message).toContain('User "alice" cannot list resource "pipelines" in API group "cairn.dev" in the namespace "default"');
    await apply('devs-access', pipelineAccess('devs-pipelines', { kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' }));
    const allowed = await eventually('GET', pipelinesPath('default'), asAlice(plane.proxyClient), (r) => r.status !== 403);
    expect(allowed.status, allowed.text).toBe(200);
    // The proxy's certificate alone names nobody: its CA is not a client CA.
    expect((await cairn.request('GET', pipelinesPath('default'), { clientCert: plane.proxyClient })).status).toBe(401);
  });

  it('picks up a changed ConfigMap: a new front-proxy CA and allowed name', async () => {
    const other = await ensurePki(join(dir, 'other-front-proxy'), { hosts: ['localhost'] });
    const otherProxy = issueClientCertificate(other.clientCaPem, other.clientCaKeyPem, { commonName: 'other-proxy' });
    expect((await cairn.request('GET', pipelinesPath('default'), asAlice(otherProxy))).status).toBe(401);

    const configMap = JSON.parse((await kubectl('-n', 'kube-system', 'get', 'configmap', 'extension-apiserver-authentication', '-o', 'json')).stdout);
    const data = {
      'requestheader-client-ca-file': `${configMap.data['requestheader-client-ca-file']}${other.clientCaPem}`,
      'requestheader-allowed-names': JSON.stringify([...JSON.parse(configMap.data['requestheader-allowed-names']), 'other-proxy']),
    };
    await kubectl('-n', 'kube-system', 'patch', 'configmap', 'extension-apiserver-authentication', '--type', 'merge', '-p', JSON.stringify({ data }));

    const allowed = await eventually('GET', pipelinesPath('default'), asAlice(otherProxy), (r) => r.status === 200);
    expect(allowed.status, allowed.text).toBe(200);
    // The aggregator's own proxy still works.
    expect((await cairn.request('GET', pipelinesPath('default'), asAlice(plane.proxyClient))).status).toBe(200);
  });

  it('refuses a Pipeline in a namespace the cluster does not have, or is terminating, as NamespaceLifecycle does', async () => {
    const missing = await cairn.request('POST', pipelinesPath('later'), { body: pipeline('p') });
    expect(missing.status, missing.text).toBe(404);
    expect(missing.json).toMatchObject({ reason: 'NotFound', message: 'namespaces "later" not found', details: { name: 'later', kind: 'namespaces' } });

    await kubectl('create', 'namespace', 'later');
    const created = await cairn.request('POST', pipelinesPath('later'), { body: pipeline('p') });
    expect(created.status, created.text).toBe(201);

    // No namespace controller runs here: a deleted namespace stays Terminating.
    await kubectl('create', 'namespace', 'doomed');
    await kubectl('delete', 'namespace', 'doomed', '--wait=false');
    const terminating = await cairn.request('POST', pipelinesPath('doomed'), { body: pipeline('p') });
    expect(terminating.status, terminating.text).toBe(403);
    expect(terminating.json).toMatchObject({
      reason: 'Forbidden',
      message: 'pipelines.cairn.dev "p" is forbidden: unable to create new content in namespace doomed because it is being terminated',
      details: { name: 'p', group: 'cairn.dev', kind: 'pipelines', causes: [{ reason: 'NamespaceTerminating', field: 'metadata.namespace' }] },
    });
  });

  it('runs no garbage collector under --garbage-collector=auto: kube-controller-manager collects Cairn’s kinds in a cluster', async () => {
    const metrics = await cairn.request('GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('apiserver_request_total');
    expect(metrics.text).not.toContain('cairn_garbage_collector_leader');
  });
});
