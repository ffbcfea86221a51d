/**
 * A standalone Cairn with kube-apiserver's own authentication and authorization files:
 * users of `--token-auth-file` and of `--client-ca-file`, and an
 * `--authorization-policy-file` giving a team read-only access to the Pipelines of one
 * namespace. Everyone else outside the admin group `system:masters` is refused, as the
 * default policy wants; real kubectl, with a token kubeconfig, sees the same.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseConfig } from '../../src/server/config.js';
import { ensurePki, issueClientCertificate, type IssuedCertificate } from '../../src/server/pki.js';
import { startServer } from '../../src/server/server.js';
import { kubectlAvailable, kubectlOnPath, runKubectl } from '../support/kubectl.js';
import { pipeline, startTestServer, type RequestOptions, type TestResponse, type TestServer } from '../support/test-server.js';

const tokens = [
  'tina-token,tina,u-tina,"pipeline-readers,staff"',
  'ada-token,ada,u-ada,system:masters',
  'nemo-token,nemo,u-nemo',
  'hana-token,hana,u-hana,history-readers',
  // Token files are not commented: kube would read a "#" line as a record, so this is one.
  '#comment-token,hash,u-hash',
].join('\n');

const rbac = 'rbac.authorization.k8s.io/v1';
const roleRef = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });

/** The team, and the auditors (whose certificates come from --client-ca-file), read the Pipelines of team-a. */
const teamBinding = {
  apiVersion: rbac,
  kind: 'RoleBinding',
  metadata: { name: 'team-reads-pipelines', namespace: 'team-a' },
  roleRef: roleRef('ClusterRole', 'pipeline-reader'),
  subjects: [
    { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'pipeline-readers' },
    { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'auditors' },
  ],
};

/** Those who read the history of team-a's Pipelines, and only that: a subresource is authorized as its own resource. */
const historyBinding = {
  apiVersion: rbac,
  kind: 'RoleBinding',
  metadata: { name: 'history-readers', namespace: 'team-a' },
  roleRef: roleRef('ClusterRole', 'pipeline-history-reader'),
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'history-readers' }],
};

/** The ClusterRoles, then the bindings in a List, as `kubectl get -o yaml` writes several objects. */
const policy: readonly object[] = [
  {
    apiVersion: rbac,
    kind: 'ClusterRole',
    metadata: { name: 'pipeline-reader' },
    rules: [{ apiGroups: ['cairn.dev'], resources: ['pipelines'], verbs: ['get', 'list', 'watch'] }],
  },
  {
    apiVersion: rbac,
    kind: 'ClusterRole',
    metadata: { name: 'pipeline-history-reader' },
    rules: [{ apiGroups: ['cairn.dev'], resources: ['pipelines/history'], verbs: ['get'] }],
  },
  { apiVersion: 'v1', kind: 'List', items: [teamBinding, historyBinding] },
];

const teamA = '/apis/cairn.dev/v1/namespaces/team-a/pipelines';
const teamB = '/apis/cairn.dev/v1/namespaces/team-b/pipelines';

let dir: string;
let server: TestServer;
let auditor: IssuedCertificate;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-standalone-authz-'));
  const usersCa = await ensurePki(join(dir, 'users-ca'), { hosts: ['localhost'] });
  auditor = issueClientCertificate(usersCa.clientCaPem, usersCa.clientCaKeyPem, { commonName: 'xavier', organizations: ['auditors'] });
  await writeFile(join(dir, 'tokens.csv'), tokens);
  await writeFile(join(dir, 'users-ca.crt'), usersCa.clientCaPem);
  await writeFile(join(dir, 'policy.yaml'), policy.map((o) => stringify(o)).join('---\n'));
  server = await startTestServer({
    backend: 'pglite',
    args: [
      '--token-auth-file',
      join(dir, 'tokens.csv'),
      '--client-ca-file',
      join(dir, 'users-ca.crt'),
      '--authorization-policy-file',
      join(dir, 'policy.yaml'),
    ],
  });
  for (const path of [teamA, teamB]) expect((await server.request('POST', path, { body: pipeline('p') })).status).toBe(201);
});

afterAll(async () => {
  await server?.destroy();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A request with `Authorization: Bearer <token>` and no client certificate. */
const as = (token: string, method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> =>
  server.request(method, path, { ...options, clientCert: null, headers: { ...options.headers, Authorization: `Bearer ${token}` } });

const forbidden = (message: string) => ({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message });

describe('a team with read-only access to the Pipelines of one namespace', () => {
  it('gets, lists and watches them', async () => {
    const get = await as('tina-token', 'GET', `${teamA}/p`);
    expect(get.status).toBe(200);
    expect(get.json.metadata).toMatchObject({ name: 'p', namespace: 'team-a' });
    const list = await as('tina-token', 'GET', teamA);
    expect(list.status).toBe(200);
    expect(list.json.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(['p']);
    // The server ends the watch after timeoutSeconds; what it sent before is the ADDED event.
    const watch = await as('tina-token', 'GET', `${teamA}?watch=true&timeoutSeconds=1`);
    expect(watch.status).toBe(200);
    expect(JSON.parse(watch.text.split('\n')[0])).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'p' } } });
  });

  it('may not create, update, patch or delete them: 403 worded as kube words it', async () => {
    const current = (await server.request('GET', `${teamA}/p`)).json;
    const cases: [string, string, RequestOptions, string][] = [
      [
        'POST',
        teamA,
        { body: pipeline('q') },
        'pipelines.cairn.dev is forbidden: User "tina" cannot create resource "pipelines" in API group "cairn.dev" in the namespace "team-a"',
      ],
      [
        'PUT',
        `${teamA}/p`,
        { body: current },
        'pipelines.cairn.dev "p" is forbidden: User "tina" cannot update resource "pipelines" in API group "cairn.dev" in the namespace "team-a"',
      ],
      [
        'PATCH',
        `${teamA}/p`,
        { body: { spec: { replicas: 2 } }, headers: { 'Content-Type': 'application/merge-patch+json' } },
        'pipelines.cairn.dev "p" is forbidden: User "tina" cannot patch resource "pipelines" in API group "cairn.dev" in the namespace "team-a"',
      ],
      [
        'DELETE',
        `${teamA}/p`,
        {},
        'pipelines.cairn.dev "p" is forbidden: User "tina" cannot delete resource "pipelines" in API group "cairn.dev" in the namespace "team-a"',
      ],
      [
        'PUT',
        `${teamA}/p/status`,
        { body: current },
        'pipelines.cairn.dev "p" is forbidden: User "tina" cannot update resource "pipelines/status" in API group "cairn.dev" in the namespace "team-a"',
      ],
      [
        'GET',
        `${teamA}/p/scale`,
        {},
        'pipelines.cairn.dev "p" is forbidden: User "tina" cannot get resource "pipelines/scale" in API group "cairn.dev" in the namespace "team-a"',
      ],
    ];
    for (const [method, path, options, message] of cases) {
      const res = await as('tina-token', method, path, options);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.json, `${method} ${path}`).toMatchObject(forbidden(message));
    }
    expect((await server.request('GET', `${teamA}/p`)).json.metadata.resourceVersion).toBe(current.metadata.resourceVersion);
  });

  it('may not read other namespaces, nor across namespaces, nor other resources', async () => {
    const cases: [string, string][] = [
      [`${teamB}/p`, 'pipelines.cairn.dev "p" is forbidden: User "tina" cannot get resource "pipelines" in API group "cairn.dev" in the namespace "team-b"'],
      [teamB, 'pipelines.cairn.dev is forbidden: User "tina" cannot list resource "pipelines" in API group "cairn.dev" in the namespace "team-b"'],
      [
        '/apis/cairn.dev/v1/pipelines',
        'pipelines.cairn.dev is forbidden: User "tina" cannot list resource "pipelines" in API group "cairn.dev" at the cluster scope',
      ],
      [
        '/apis/cairn.dev/v1/runnerclasses',
        'runnerclasses.cairn.dev is forbidden: User "tina" cannot list resource "runnerclasses" in API group "cairn.dev" at the cluster scope',
      ],
      ['/metrics', 'forbidden: User "tina" cannot get path "/metrics"'],
    ];
    for (const [path, message] of cases) {
      const res = await as('tina-token', 'GET', path);
      expect(res.status, path).toBe(403);
      expect(res.json, path).toMatchObject(forbidden(message));
    }
  });

  it('reads discovery and OpenAPI, as kube’s system:discovery lets every authenticated user', async () => {
    for (const path of ['/api', '/apis', '/apis/cairn.dev', '/apis/cairn.dev/v1', '/openapi/v3', '/openapi/v2', '/version', '/healthz'])
      expect((await as('tina-token', 'GET', path)).status, path).toBe(200);
  });
});

describe('the history subresource, authorized as pipelines/history', () => {
  it('is refused to a user who may get pipelines but not pipelines/history', async () => {
    const res = await as('tina-token', 'GET', `${teamA}/p/history`);
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject(
      forbidden('pipelines.cairn.dev "p" is forbidden: User "tina" cannot get resource "pipelines/history" in API group "cairn.dev" in the namespace "team-a"'),
    );
  });

  it('is read by a user allowed only pipelines/history, who may not read the object itself', async () => {
    const history = await as('hana-token', 'GET', `${teamA}/p/history`);
    expect(history.status).toBe(200);
    // The admin certificate created it: the user recorded is the one authenticated for the write.
    expect(history.json.items.map((i: { operation: string; user: string }) => [i.operation, i.user])).toEqual([['create', 'cairn-admin']]);
    const object = await as('hana-token', 'GET', `${teamA}/p`);
    expect(object.json).toMatchObject(
      forbidden('pipelines.cairn.dev "p" is forbidden: User "hana" cannot get resource "pipelines" in API group "cairn.dev" in the namespace "team-a"'),
    );
    expect((await as('hana-token', 'GET', `${teamB}/p/history`)).status).toBe(403);
  });
});

describe('the default policy', () => {
  it('allows a user of the admin group everything', async () => {
    expect((await as('ada-token', 'POST', teamB, { body: pipeline('by-ada') })).status).toBe(201);
    expect((await as('ada-token', 'DELETE', `${teamB}/by-ada`)).status).toBe(200);
    expect((await as('ada-token', 'GET', '/apis/cairn.dev/v1/pipelines')).json.items).toHaveLength(2);
    expect((await as('ada-token', 'GET', '/apis/cairn.dev/v1/runnerclasses')).status).toBe(200);
    expect((await as('ada-token', 'GET', '/metrics')).status).toBe(200);
  });

  it('refuses an authenticated user no binding names', async () => {
    const res = await as('nemo-token', 'GET', teamA);
    expect(res.json).toMatchObject(
      forbidden('pipelines.cairn.dev is forbidden: User "nemo" cannot list resource "pipelines" in API group "cairn.dev" in the namespace "team-a"'),
    );
    expect((await as('#comment-token', 'GET', teamA)).status).toBe(403);
  });

  it('answers an unknown bearer token with 401, whatever the path, as kube’s bearer-token authenticator does', async () => {
    for (const path of [teamA, '/apis', '/version', '/healthz']) {
      const res = await as('no-such-token', 'GET', path);
      expect(res.status, path).toBe(401);
      expect(res.json, path).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401, message: 'Unauthorized' });
    }
  });

  it('still lets anyone read /version and the health endpoints, and nothing else', async () => {
    for (const path of ['/version', '/healthz', '/readyz', '/livez']) expect((await server.request('GET', path, { clientCert: null })).status, path).toBe(200);
    for (const path of ['/apis', teamA]) expect((await server.request('GET', path, { clientCert: null })).status, path).toBe(401);
  });
});

describe('client certificates of --client-ca-file', () => {
  it('authenticate CN as the user and O as groups, authorized by a Group binding', async () => {
    const list = await server.request('GET', teamA, { clientCert: auditor });
    expect(list.status).toBe(200);
    const create = await server.request('POST', teamA, { clientCert: auditor, body: pipeline('by-xavier') });
    expect(create.json).toMatchObject(
      forbidden('pipelines.cairn.dev is forbidden: User "xavier" cannot create resource "pipelines" in API group "cairn.dev" in the namespace "team-a"'),
    );
  });

  it('sit beside the admin kubeconfig’s CA, which still authenticates', async () => {
    expect((await server.request('DELETE', `${teamB}/p`)).status).toBe(200);
    expect((await server.request('POST', teamB, { body: pipeline('p') })).status).toBe(201);
  });
});

describe.skipIf(!kubectlAvailable)('kubectl with a token kubeconfig', () => {
  it('gets the Pipelines the team may read, and is refused a create with kube’s message', async () => {
    const kubeconfig = join(dir, 'tina.kubeconfig');
    await writeFile(
      kubeconfig,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'cairn', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.pki.servingCaPem).toString('base64') } }],
        users: [{ name: 'tina', user: { token: 'tina-token' } }],
        contexts: [{ name: 'cairn', context: { cluster: 'cairn', user: 'tina', namespace: 'team-a' } }],
        'current-context': 'cairn',
      }),
    );
    await writeFile(join(dir, 'q.yaml'), stringify(pipeline('q')));
    const env = { PATH: process.env.PATH, HOME: dir, KUBECONFIG: kubeconfig };
    const get = await runKubectl(kubectlOnPath!, ['get', 'pipelines', '-o', 'name'], env);
    expect(get, get.stderr).toMatchObject({ code: 0, stdout: 'pipeline.cairn.dev/p\n' });
    const create = await runKubectl(kubectlOnPath!, ['create', '-f', join(dir, 'q.yaml')], env);
    expect(create.code).toBe(1);
    expect(create.stderr).toContain(
      'Error from server (Forbidden): error when creating "' +
        join(dir, 'q.yaml') +
        '": pipelines.cairn.dev is forbidden: User "tina" cannot create resource "pipelines" in API group "cairn.dev" in the namespace "team-a"',
    );
    const other = await runKubectl(kubectlOnPath!, ['get', 'pipelines', '-n', 'team-b'], env);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(
      'Error from server (Forbidden): pipelines.cairn.dev is forbidden: User "tina" cannot list resource "pipelines" in API group "cairn.dev" in the namespace "team-b"',
    );
  });
});

describe('startup', () => {
  const start = (args: readonly string[], env: NodeJS.ProcessEnv = {}) =>
    startServer(parseConfig(['--port', '0', '--data-dir', join(dir, 'refused'), '--no-controller', ...args], env), pino({ level: 'silent' }));

  it('refuses a policy file kube would refuse, naming the file and the problem', async () => {
    const bad = join(dir, 'bad-policy.yaml');
    await writeFile(bad, stringify({ ...teamBinding, roleRef: roleRef('ClusterRole', 'pipeline-writer') }));
    await expect(start(['--authorization-policy-file', bad])).rejects.toThrow(
      `--authorization-policy-file ${bad}: RoleBinding "team-a/team-reads-pipelines" refers to ClusterRole "pipeline-writer", which is not defined`,
    );
    await writeFile(bad, stringify({ apiVersion: rbac, kind: 'ClusterRole', metadata: { name: 'x' }, rules: [{ resources: ['pipelines'], verbs: ['get'] }] }));
    await expect(start(['--authorization-policy-file', bad])).rejects.toThrow(/document 1 \(ClusterRole "x"\): rules\[0\]\.apiGroups: Required value/);
    await expect(start(['--authorization-policy-file', join(dir, 'missing.yaml')])).rejects.toThrow(/--authorization-policy-file .*missing\.yaml: ENOENT/);
  });

  it('refuses a token file of too few columns and a client CA file without a certificate', async () => {
    const badTokens = join(dir, 'bad-tokens.csv');
    await writeFile(badTokens, 'only,two\n');
    await expect(start(['--token-auth-file', badTokens])).rejects.toThrow(`token file '${badTokens}' must have at least 3 columns`);
    const badCa = join(dir, 'bad-ca.crt');
    await writeFile(badCa, 'not a certificate\n');
    await expect(start(['--client-ca-file', badCa])).rejects.toThrow(`--client-ca-file ${badCa}: no certificate in the PEM bundle`);
  });

  it('refuses a front-proxy CA that --client-ca-file shares, without allowed names, as kube-apiserver does', async () => {
    const ca = join(dir, 'users-ca.crt');
    await expect(start(['--client-ca-file', ca, '--requestheader-client-ca-file', ca])).rejects.toThrow(
      'the client CA and --requestheader-client-ca-file contain overlapping certificates; --requestheader-allowed-names must be specified',
    );
  });

  it('refuses a policy file when authorization is delegated to the main API server', async () => {
    const kubeconfig = join(dir, 'main.kubeconfig');
    await writeFile(
      kubeconfig,
      stringify({
        clusters: [
          { name: 'main', cluster: { server: 'https://127.0.0.1:1', 'certificate-authority-data': Buffer.from(server.pki.servingCaPem).toString('base64') } },
        ],
        users: [{ name: 'cairn', user: { token: 't' } }],
        contexts: [{ name: 'main', context: { cluster: 'main', user: 'cairn' } }],
        'current-context': 'main',
      }),
    );
    await expect(start(['--authorization-policy-file', join(dir, 'policy.yaml'), '--authorization-kubeconfig', kubeconfig])).rejects.toThrow(
      '--authorization-policy-file is for a standalone Cairn: authorization is delegated to the main API server',
    );
  });
});
