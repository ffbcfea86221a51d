/**
 * Cairn in a pod, against a real kube-apiserver 1.34: with no `--authentication-kubeconfig`
 * or `--authorization-kubeconfig`, it delegates through the in-cluster config, as
 * k8s.io/apiserver's delegating options fall back to client-go's `rest.InClusterConfig`:
 * `KUBERNETES_SERVICE_HOST` and `KUBERNETES_SERVICE_PORT` name kube-apiserver, and the
 * ServiceAccount directory holds a token of `cairn-system/cairn-apiserver` and the cluster's
 * CA. That ServiceAccount has exactly what apiservice/ gives it, applied as written.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startKubeControlPlane, type KubeControlPlane } from '../support/kube-control-plane.js';
import { kubectlAvailable, type RunResult } from '../support/kubectl.js';
import { pipeline, startTestServer, type RequestOptions, type TestResponse, type TestServer } from '../support/test-server.js';
import { bearer, eventually as eventuallyAnswers } from '../support/delegation.js';
import { kubectlOk } from '../support/shared-control-plane.js';

const manifestsDir = join(import.meta.dirname, '..', '..', 'apiservice');
/** The manifests that make Cairn's ServiceAccount and its bindings. */
const identityManifests = [
  '00-namespace.yaml',
  '10-service-account.yaml',
  '11-auth-delegator.yaml',
  '12-auth-reader.yaml',
  '14-namespace-reader.yaml',
  '15-webhook-configuration-reader.yaml',
];
const pipelinesPath = (namespace: string) => `/apis/cairn.dev/v1/namespaces/${namespace}/pipelines`;

describe.runIf(kubectlAvailable)('delegation through the in-cluster config (a ServiceAccount token and CA, KUBERNETES_SERVICE_*)', () => {
  let plane: KubeControlPlane;
  let cairn: TestServer;
  let dir: string;

  const kubectl = (...args: string[]): Promise<RunResult> => kubectlOk(plane, ...args);
  const eventually = (method: string, path: string, options: RequestOptions, done: (r: TestResponse) => boolean): Promise<TestResponse> =>
    eventuallyAnswers(cairn, method, path, options, done);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-in-cluster-'));
    plane = await startKubeControlPlane(inject('goPrograms'));
    for (const file of identityManifests) await kubectl('apply', '-f', join(manifestsDir, file));
    // What kubelet mounts into the pod at /var/run/secrets/kubernetes.io/serviceaccount.
    const serviceAccountDir = join(dir, 'serviceaccount');
    await mkdir(serviceAccountDir);
    const token = (await kubectl('-n', 'cairn-system', 'create', 'token', 'cairn-apiserver')).stdout.trim();
    await writeFile(join(serviceAccountDir, 'token'), token);
    await writeFile(join(serviceAccountDir, 'ca.crt'), plane.servingCaPem);
    await writeFile(join(serviceAccountDir, 'namespace'), 'cairn-system');
    const { hostname, port } = new URL(plane.url);
    cairn = await startTestServer({
      backend: 'pglite',
      // No kubeconfig flag: only the cache TTLs, short so a new RoleBinding applies at once.
      args: [
        '--authentication-token-webhook-cache-ttl=500ms',
        '--authorization-webhook-cache-authorized-ttl=500ms',
        '--authorization-webhook-cache-unauthorized-ttl=500ms',
      ],
      env: { KUBERNETES_SERVICE_HOST: hostname, KUBERNETES_SERVICE_PORT: port },
      seams: { serviceAccountDir },
    });
  }, 180_000);

  afterAll(async () => {
    await cairn?.destroy();
    await plane?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('refuses an unknown bearer token with 401 (TokenReview)', async () => {
    const response = await cairn.request('GET', pipelinesPath('default'), bearer('not-a-token'));
    expect(response.status, response.text).toBe(401);
    expect(response.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    // And anonymous requests are decided by SubjectAccessReview too: kube's RBAC lets nobody list Pipelines.
    expect((await cairn.request('GET', pipelinesPath('default'), { clientCert: null })).status).toBe(401);
  });

  it('authenticates another ServiceAccount’s token, answers 403 naming it until RBAC grants it, then 200 (SubjectAccessReview)', async () => {
    await kubectl('-n', 'default', 'create', 'serviceaccount', 'robot');
    const token = (await kubectl('-n', 'default', 'create', 'token', 'robot')).stdout.trim();
    const refused = await cairn.request('GET', pipelinesPath('default'), bearer(token));
    expect(refused.status, refused.text).toBe(403);
    expect(refused.json).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403, details: { group: 'cairn.dev', kind: 'pipelines' } });
    expect(refused.json.message).toBe(
      'pipelines.cairn.dev is forbidden: User "system:serviceaccount:default:robot" cannot list resource "pipelines" in API group "cairn.dev" in the namespace "default"',
    );
    // apiservice/'s cairn-view ClusterRole, bound directly (no kube-controller-manager aggregates it into view here).
    await kubectl('apply', '-f', join(manifestsDir, '13-aggregated-roles.yaml'));
    await kubectl('-n', 'default', 'create', 'rolebinding', 'robot-view', '--clusterrole=cairn-view', '--serviceaccount=default:robot');
    const allowed = await eventually('GET', pipelinesPath('default'), bearer(token), (r) => r.status !== 403);
    expect(allowed.status, allowed.text).toBe(200);
    expect(allowed.json.kind).toBe('PipelineList');
  });

  it('trusts the front proxy as kube-system/extension-apiserver-authentication says (the auth reader binding)', async () => {
    const asAlice = { clientCert: plane.proxyClient, headers: { 'X-Remote-User': 'alice', 'X-Remote-Group': 'devs' } };
    const refused = await cairn.request('GET', pipelinesPath('default'), asAlice);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.json.message).toContain('User "alice" cannot list resource "pipelines"');
    // The cluster's client CA too: kube-apiserver's admin (system:masters) is allowed without a review.
    const admin = await cairn.request('GET', pipelinesPath('default'), { clientCert: plane.admin });
    expect(admin.status, admin.text).toBe(200);
  });

  it('refuses a Pipeline in a namespace the cluster does not have, and creates it once it exists (the namespace reader binding)', async () => {
    const missing = await cairn.request('POST', pipelinesPath('later'), { body: pipeline('p') });
    expect(missing.status, missing.text).toBe(404);
    expect(missing.json).toMatchObject({ reason: 'NotFound', message: 'namespaces "later" not found' });
    await kubectl('create', 'namespace', 'later');
    const created = await cairn.request('POST', pipelinesPath('later'), { body: pipeline('p') });
    expect(created.status, created.text).toBe(201);
  });
});
