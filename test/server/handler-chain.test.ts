/**
 * The handler chain in process, over a real TLS socket: request info, authentication
 * by client certificate against the authenticator's own CA (with a listener that also
 * trusts another CA), the audit seam, authorization (401 for anonymous, 403 worded as
 * kube words it), Status errors in the negotiated serializer, and the request metrics.
 */
import https from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditBackend, AuditEvent } from '../../src/audit/audit.js';
import { auditPolicyRuleEvaluator } from '../../src/audit/policy.js';
import { deny, noOpinion, type Authorizer } from '../../src/auth/authorizer.js';
import { bootstrapPolicy } from '../../src/auth/bootstrap-policy.js';
import { defaultAlwaysAllowPaths, PathAuthorizer } from '../../src/auth/path-authorizer.js';
import { RbacAuthorizer } from '../../src/auth/rbac-authorizer.js';
import { UnionAuthorizer } from '../../src/auth/union-authorizer.js';
import { X509Authenticator } from '../../src/auth/x509-authenticator.js';
import { createApp } from '../../src/http/app.js';
import { Registry } from '../../src/registry/registry.js';
import { openDatabase } from '../../src/server/open-database.js';
import { ensurePki, issueClientCertificate, type IssuedCertificate, type Pki } from '../../src/server/pki.js';
import { servedGroups } from '../../src/server/server.js';
import { listen, type Listener } from '../../src/server/serving.js';
import type { Database } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { issueOtherCa } from '../support/other-ca.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { pipeline, requestServer, type RequestOptions, type ServerEndpoint, type TestResponse } from '../support/test-server.js';

/** Keeps every audit event, in order. */
class RecordingAudit implements AuditBackend {
  readonly events: AuditEvent[] = [];

  processEvents(...events: AuditEvent[]): void {
    this.events.push(...events);
  }

  of(auditID: string): AuditEvent[] {
    return this.events.filter((e) => e.auditID === auditID);
  }
}

/** bob may do nothing (but the always-allow paths); the others get the bootstrap policy. A reason is given for deletes only. */
const bobIsDenied: Authorizer = {
  authorize: (a) => (a.user.name === 'bob' ? deny(a.verb === 'delete' ? 'bob may not delete' : '') : noOpinion()),
};

const pipelines = '/apis/cairn.dev/v1/namespaces/default/pipelines';
const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

let dir: string;
let pki: Pki;
let database: Database;
let store: SqlObjectStore;
let listener: Listener;
let endpoint: ServerEndpoint;
let frontProxy: IssuedCertificate;
let bob: IssuedCertificate;
const audit = new RecordingAudit();
const shutdown = new AbortController();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-chain-'));
  const other = await issueOtherCa();
  pki = await ensurePki(dir, { hosts: ['127.0.0.1'] });
  frontProxy = other;
  bob = issueClientCertificate(pki.clientCaPem, pki.clientCaKeyPem, { commonName: 'bob', organizations: ['devs'] });
  database = await openDatabase({ databaseUrl: await testDatabaseUrl(), dataDir: dir }, pino({ level: 'silent' }));
  await migrateToLatest(database);
  store = await SqlObjectStore.open(database);
  const registry = new Registry(servedGroups, store);
  const app = createApp({
    groups: servedGroups,
    registry: () => registry,
    authenticators: [new X509Authenticator({ clientCaPems: [pki.clientCaPem] })],
    authorizer: new UnionAuthorizer([new PathAuthorizer(defaultAlwaysAllowPaths), bobIsDenied, new RbacAuthorizer([bootstrapPolicy])]),
    audit,
    auditPolicy: auditPolicyRuleEvaluator({ rules: [{ level: 'Metadata' }] }),
    livezChecks: [{ name: 'ping', check: () => undefined }],
    readyzChecks: [{ name: 'ping', check: () => undefined }],
    logger: pino({ level: 'silent' }),
    shutdown: shutdown.signal,
    watchBookmarkIntervalMs: 60_000,
  });
  // The listener verifies certificates of both CAs at the handshake, as it will once a front-proxy CA is configured.
  listener = await listen(
    app.callback(),
    { certPem: pki.servingCertPem, keyPem: pki.servingKeyPem, clientCaPems: [pki.clientCaPem, other.caPem] },
    '127.0.0.1',
    0,
  );
  endpoint = { url: `https://127.0.0.1:${listener.port}`, pki };
});

afterAll(async () => {
  shutdown.abort();
  await listener?.close(1000);
  await store?.close();
  await database?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const request = (method: string, path: string, options?: RequestOptions): Promise<TestResponse> => requestServer(endpoint, method, path, options);
const anonymous = { clientCert: null };

/** Retries `check` for up to two seconds: a stream's handler finishes just after the client lets go. */
async function eventually(check: () => Promise<void> | void): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await check();
    } catch (error) {
      if (attempt >= 40) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Opens a watch as the admin, resolves once its headers arrived, with a way to leave. */
function openWatch(path: string): Promise<{ status: number; auditID: string; leave: () => void }> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${endpoint.url}${path}`, { ca: pki.servingCaPem, cert: pki.adminCertPem, key: pki.adminKeyPem, agent: false }, (res) => {
      res.on('error', () => undefined);
      res.resume();
      resolve({ status: res.statusCode ?? 0, auditID: String(res.headers['audit-id']), leave: () => req.destroy() });
    });
    req.on('error', (error) => (error.message === 'socket hang up' ? undefined : reject(error)));
    req.end();
  });
}

describe('authentication and authorization', () => {
  it('lets anyone reach the health endpoints and /version, and answers 401 elsewhere', async () => {
    for (const path of ['/healthz', '/livez', '/readyz', '/readyz/ping', '/livez/ping', '/version']) {
      expect((await request('GET', path, anonymous)).status, path).toBe(200);
    }
    for (const path of ['/apis', '/metrics', '/openapi/v3', `${pipelines}/x`, '/no/such/path']) {
      const res = await request('GET', path, anonymous);
      expect(res.status, path).toBe(401);
      expect(res.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
    }
  });

  it("authenticates a client certificate against its authenticator's CA only, not every CA the listener trusts", async () => {
    // The front-proxy certificate passes the handshake, and names "cairn-admin" in system:masters, as the admin's does.
    const proxied = await request('GET', '/apis', { clientCert: frontProxy });
    expect(proxied.status).toBe(401);
    expect(proxied.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized' });
    expect((await request('GET', '/apis')).status).toBe(200);
  });

  it('lets authenticated users outside the admin group read discovery, and the monitoring group the metrics, as kube’s bootstrap roles do', async () => {
    const jane = issueClientCertificate(pki.clientCaPem, pki.clientCaKeyPem, { commonName: 'jane' });
    for (const path of ['/apis', '/apis/cairn.dev/v1', '/openapi/v3', '/version'])
      expect((await request('GET', path, { clientCert: jane })).status, path).toBe(200);
    for (const path of [pipelines, '/metrics']) expect((await request('GET', path, { clientCert: jane })).status, path).toBe(403);
    const prometheus = issueClientCertificate(pki.clientCaPem, pki.clientCaKeyPem, { commonName: 'prometheus', organizations: ['system:monitoring'] });
    expect((await request('GET', '/metrics', { clientCert: prometheus })).status).toBe(200);
  });

  it('answers a denied user with a 403 Status naming user, verb and resource', async () => {
    const get = await request('GET', '/apis/cairn.dev/v1/namespaces/ns/pipelines/x', { clientCert: bob });
    expect(get.status).toBe(403);
    expect(get.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'pipelines.cairn.dev "x" is forbidden: User "bob" cannot get resource "pipelines" in API group "cairn.dev" in the namespace "ns"',
      reason: 'Forbidden',
      details: { name: 'x', group: 'cairn.dev', kind: 'pipelines' },
      code: 403,
    });
    const cases: [string, string, string][] = [
      [
        'GET',
        '/apis/cairn.dev/v1/runnerclasses',
        'runnerclasses.cairn.dev is forbidden: User "bob" cannot list resource "runnerclasses" in API group "cairn.dev" at the cluster scope',
      ],
      [
        'GET',
        `${pipelines}?watch=true`,
        'pipelines.cairn.dev is forbidden: User "bob" cannot watch resource "pipelines" in API group "cairn.dev" in the namespace "default"',
      ],
      [
        'GET',
        `${pipelines}?fieldSelector=metadata.name%3Dy`,
        'pipelines.cairn.dev "y" is forbidden: User "bob" cannot list resource "pipelines" in API group "cairn.dev" in the namespace "default"',
      ],
      [
        'POST',
        `${pipelines}/p/logs`,
        'pipelines.cairn.dev "p" is forbidden: User "bob" cannot create resource "pipelines/log" in API group "cairn.dev" in the namespace "default"',
      ],
      [
        'DELETE',
        `${pipelines}/p`,
        'pipelines.cairn.dev "p" is forbidden: User "bob" cannot delete resource "pipelines" in API group "cairn.dev" in the namespace "default": bob may not delete',
      ],
      [
        'DELETE',
        pipelines,
        'pipelines.cairn.dev is forbidden: User "bob" cannot deletecollection resource "pipelines" in API group "cairn.dev" in the namespace "default"',
      ],
      ['GET', '/apis', 'forbidden: User "bob" cannot get path "/apis"'],
    ];
    for (const [method, path, message] of cases) {
      const res = await request(method, path, { clientCert: bob });
      expect(res.status, path).toBe(403);
      expect(res.json, path).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403, message });
    }
    // Health stays open to bob: the always-allow paths come first.
    expect((await request('GET', '/readyz', { clientCert: bob })).status).toBe(200);
  });
});

describe('request info', () => {
  it('answers a path it cannot read with a 400 Status, before authentication', async () => {
    for (const path of ['/apis/cairn.dev/v1/namespaces/a%zz/pipelines', '/apis/cairn.dev/v1/watch', '/healthz%']) {
      const res = await request('GET', path, anonymous);
      expect(res.status, path).toBe(400);
      expect(res.json, path).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    }
  });
});

describe('Status errors', () => {
  it('are written in the serializer the client accepts, JSON when it accepts none of ours', async () => {
    const yaml = await request('GET', `${pipelines}/missing`, { headers: { Accept: 'application/yaml' } });
    expect(yaml.status).toBe(404);
    expect(yaml.headers['content-type']).toMatch(/^application\/yaml/);
    expect(parseYaml(yaml.text)).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404, message: 'pipelines.cairn.dev "missing" not found' });
    const table = await request('GET', `${pipelines}/missing`, { headers: { Accept: tableAccept } });
    expect(table.headers['content-type']).toMatch(/^application\/json/);
    expect(table.json).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    // A client accepting nothing Cairn writes still reads why.
    const html = await request('GET', `${pipelines}/missing`, { headers: { Accept: 'text/html' } });
    expect(html.headers['content-type']).toMatch(/^application\/json/);
    expect(html.json).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    const unauthorized = await request('GET', '/apis', { clientCert: null, headers: { Accept: 'application/yaml' } });
    expect(parseYaml(unauthorized.text)).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });
});

describe('audit', () => {
  it('is told when a request is received and completed, with its code, under the Audit-Id it answers with', async () => {
    const res = await request('GET', `${pipelines}/missing`, { headers: { 'User-Agent': 'chain-test/1' } });
    const auditID = String(res.headers['audit-id']);
    expect(auditID).toMatch(/^[0-9a-f-]{36}$/);
    const events = audit.of(auditID);
    expect(events.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    expect(events[1]).toMatchObject({
      verb: 'get',
      requestURI: '/apis/cairn.dev/v1/namespaces/default/pipelines/missing',
      user: { name: 'cairn-admin', groups: ['system:masters', 'system:authenticated'] },
      userAgent: 'chain-test/1',
      objectRef: { resource: 'pipelines', namespace: 'default', name: 'missing', apiGroup: 'cairn.dev', apiVersion: 'v1' },
      responseStatus: { code: 404 },
    });
    expect(events[0].responseStatus).toBeUndefined();

    const refused = await request('GET', '/apis', { clientCert: null, headers: { 'Audit-Id': 'from-the-aggregator' } });
    expect(refused.headers['audit-id']).toBe('from-the-aggregator');
    expect(audit.of('from-the-aggregator').map((e) => [e.stage, e.user.name, e.responseStatus?.code])).toEqual([
      ['RequestReceived', 'system:anonymous', undefined],
      ['ResponseComplete', 'system:anonymous', 401],
    ]);
  });

  it('is told when a watch starts streaming, and when it ends', async () => {
    const watch = await openWatch(`${pipelines}?watch=true`);
    expect(watch.status).toBe(200);
    expect(audit.of(watch.auditID).map((e) => [e.stage, e.responseStatus?.code])).toEqual([
      ['RequestReceived', undefined],
      ['ResponseStarted', 200],
    ]);
    watch.leave();
    await eventually(() => expect(audit.of(watch.auditID).map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']));
    expect(audit.of(watch.auditID)[2]).toMatchObject({ verb: 'watch', responseStatus: { code: 200 } });
  });
});

/** `apiserver_request_total` by its labels. */
async function requestTotals(): Promise<Map<string, number>> {
  const res = await request('GET', '/metrics');
  expect(res.status).toBe(200);
  const totals = new Map<string, number>();
  for (const line of res.text.split('\n')) {
    const match = /^apiserver_request_total\{(.*)\} (\S+)$/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    totals.set(seriesKey(labels), Number(match[2]));
  }
  return totals;
}

function seriesKey(labels: Record<string, string>): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
}

/** A request_total series: kube's labels, defaults for a namespaced pipeline request. */
function series(labels: Partial<Record<'verb' | 'dry_run' | 'group' | 'version' | 'resource' | 'subresource' | 'scope' | 'code', string>>): string {
  return seriesKey({
    verb: '',
    dry_run: '',
    group: 'cairn.dev',
    version: 'v1',
    resource: 'pipelines',
    subresource: '',
    scope: 'resource',
    component: 'apiserver',
    code: '',
    ...labels,
  });
}

const nonResource = { group: '', version: '', resource: '', scope: '' };

describe('metrics', () => {
  it("count each request under kube's verb, scope and resource, with the code it was answered with", async () => {
    const before = await requestTotals();
    const apply = { 'Content-Type': 'application/apply-patch+yaml' };
    const drive = async (status: number, method: string, path: string, options?: RequestOptions) => {
      const res = await request(method, path, options);
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(status);
    };
    await drive(201, 'POST', pipelines, { body: pipeline('counted') });
    await drive(409, 'POST', pipelines, { body: pipeline('counted') });
    await drive(422, 'POST', pipelines, { body: pipeline('invalid', { replicas: -1 }) });
    await drive(201, 'POST', `${pipelines}?dryRun=All`, { body: pipeline('dry') });
    await drive(200, 'GET', `${pipelines}/counted`);
    await drive(404, 'GET', `${pipelines}/missing`);
    await drive(200, 'GET', pipelines);
    await drive(200, 'GET', '/apis/cairn.dev/v1/pipelines');
    await drive(200, 'PATCH', `${pipelines}/counted?fieldManager=test&force=true`, { body: pipeline('counted', { replicas: 2 }), headers: apply });
    await drive(200, 'PATCH', `${pipelines}/counted/status`, {
      body: { status: { phase: 'Running' } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    await drive(401, 'GET', pipelines, anonymous);
    await drive(403, 'GET', `${pipelines}/counted`, { clientCert: bob });
    await drive(400, 'GET', '/apis/cairn.dev/v1/namespaces/a%zz/pipelines');
    await drive(404, 'GET', '/apis/cairn.dev/v1/namespaces/default/nonsense-1');
    await drive(404, 'GET', '/apis/cairn.dev/v1/namespaces/default/nonsense-2');
    await drive(200, 'GET', '/healthz', anonymous);
    await drive(200, 'GET', '/readyz/ping', anonymous);
    await drive(200, 'DELETE', `${pipelines}/counted`);
    const watch = await openWatch(`${pipelines}?watch=true`);
    watch.leave();

    const expected: [string, number][] = [
      [series({ verb: 'POST', code: '201' }), 1],
      [series({ verb: 'POST', code: '409' }), 1],
      [series({ verb: 'POST', code: '422' }), 1],
      [series({ verb: 'POST', dry_run: 'All', code: '201' }), 1],
      [series({ verb: 'GET', code: '200' }), 1],
      [series({ verb: 'GET', code: '404' }), 1],
      [series({ verb: 'LIST', scope: 'namespace', code: '200' }), 1],
      [series({ verb: 'LIST', scope: 'cluster', code: '200' }), 1],
      [series({ verb: 'APPLY', code: '200' }), 1],
      [series({ verb: 'PATCH', subresource: 'status', code: '200' }), 1],
      [series({ verb: 'LIST', scope: 'namespace', code: '401' }), 1],
      [series({ verb: 'GET', code: '403' }), 1],
      // A path that cannot be read has no RequestInfo: it is counted as the non-resource request it then is.
      [series({ verb: 'GET', ...nonResource, code: '400' }), 1],
      // What Cairn does not serve shares one series, whatever the client asked for.
      [series({ verb: 'LIST', group: '', version: '', resource: '', scope: 'namespace', code: '404' }), 2],
      [series({ verb: 'GET', ...nonResource, subresource: '/healthz', code: '200' }), 1],
      [series({ verb: 'GET', ...nonResource, subresource: '/readyz/ping', code: '200' }), 1],
      [series({ verb: 'DELETE', code: '200' }), 1],
    ];
    const after = await requestTotals();
    for (const [key, count] of expected) expect((after.get(key) ?? 0) - (before.get(key) ?? 0), key).toBe(count);
    // A watch is counted once it ended, with the code it was answered with.
    await eventually(async () => {
      const totals = await requestTotals();
      const key = series({ verb: 'WATCH', scope: 'namespace', code: '200' });
      expect((totals.get(key) ?? 0) - (before.get(key) ?? 0), key).toBe(1);
    });
  });

  it('observe request durations under the same labels, without the code', async () => {
    expect((await request('GET', '/apis/cairn.dev/v1/runnerclasses')).status).toBe(200);
    const lines = (await request('GET', '/metrics')).text.split('\n');
    const count = lines.find(
      (l) => l.startsWith('apiserver_request_duration_seconds_count{') && l.includes('verb="LIST"') && l.includes('resource="runnerclasses"'),
    );
    expect(count).toMatch(/scope="cluster"/);
    expect(count).toMatch(/component="apiserver"/);
    expect(count).not.toMatch(/code=/);
    // kube's buckets, from 5 ms to a minute.
    const buckets = lines.filter((l) => l.startsWith('apiserver_request_duration_seconds_bucket{') && l.includes('resource="runnerclasses"'));
    expect(buckets.map((l) => /le="([^"]+)"/.exec(l)![1])).toEqual([
      '0.005',
      '0.025',
      '0.05',
      '0.1',
      '0.2',
      '0.4',
      '0.6',
      '0.8',
      '1',
      '1.25',
      '1.5',
      '2',
      '3',
      '4',
      '5',
      '6',
      '8',
      '10',
      '15',
      '20',
      '30',
      '45',
      '60',
      '+Inf',
    ]);
  });
});
