/**
 * Auditing over the real TLS server, started with kube-apiserver's flags
 * (`--audit-policy-file`, `--audit-log-path`, `--audit-log-maxsize`, …): the JSON lines
 * of `audit.k8s.io/v1` Events are read back from the log and checked field by field at
 * each level, per stage (ResponseStarted for watches, omitStages), with
 * omitManagedFields; rotation by the megabyte flag; startup refusing a bad policy; the
 * Panic stage of an unexpected error; and the last event on disk after SIGTERM.
 */
import { createServer } from 'node:http';
import https from 'node:https';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/audit/audit.js';
import { auditPolicyRuleEvaluator } from '../../src/audit/policy.js';
import { defaultAuthorizer } from '../../src/auth/default-authorizer.js';
import { createApp, type AppOptions } from '../../src/http/app.js';
import { internal } from '../../src/machinery/errors.js';
import { parseConfig } from '../../src/server/config.js';
import { issueClientCertificate } from '../../src/server/pki.js';
import { servedGroups, startServer } from '../../src/server/server.js';
import { eventsOf, readAuditLog, type LoggedAuditEvent } from '../support/audit-log.js';
import { eventually } from '../support/eventually.js';
import { spawnServer } from '../support/server-process.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { pipeline, requestServer, startTestServer, type ServerEndpoint, type TestServer } from '../support/test-server.js';

const policy = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ['/healthz*', '/livez*', '/readyz*']
- level: Metadata
  namespaces: [quiet]
  omitStages: [RequestReceived]
- level: Request
  namespaces: [req]
- level: RequestResponse
  namespaces: [full]
- level: RequestResponse
  namespaces: [trimmed]
  omitManagedFields: true
- level: Metadata
`;

/** kube's MicroTime: RFC 3339 in UTC with microseconds. */
const microTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const admin = { username: 'cairn-admin', groups: ['system:masters', 'system:authenticated'] };
const pipelinesIn = (namespace: string) => `/apis/cairn.dev/v1/namespaces/${namespace}/pipelines`;

/** The directories {@link tempFile} made, with what the tests put beside their files (logs, data): removed after the file's tests. */
const tempDirs: string[] = [];
afterAll(async () => {
  for (const dir of tempDirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** Writes `text` to a fresh directory's `name`, returning its path. */
async function tempFile(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-audit-policy-'));
  tempDirs.push(dir);
  await writeFile(join(dir, name), text);
  return join(dir, name);
}

describe('the audit log', () => {
  let server: TestServer;
  let log: string;

  beforeAll(async () => {
    const policyFile = await tempFile('policy.yaml', policy);
    log = join(dirname(policyFile), 'logs', 'audit.log');
    server = await startTestServer({ backend: 'pglite', args: ['--audit-policy-file', policyFile, '--audit-log-path', log] });
  });

  afterAll(async () => {
    await server?.destroy();
  });

  /** The request's events, `count` of them, with the Audit-Id it was answered with. */
  async function audited(method: string, path: string, count: number, options: Parameters<TestServer['request']>[2] = {}) {
    const res = await server.request(method, path, options);
    const auditID = String(res.headers['audit-id']);
    return { res, auditID, events: await eventsOf(log, auditID, count) };
  }

  it('writes every field of a Metadata event, RequestReceived then ResponseComplete, under the Audit-Id of the response', async () => {
    const { auditID, events } = await audited('GET', `${pipelinesIn('default')}/missing`, 2, { headers: { 'User-Agent': 'audit-test/1.0' } });
    const [received, complete] = events;
    const common = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID,
      requestURI: '/apis/cairn.dev/v1/namespaces/default/pipelines/missing',
      verb: 'get',
      user: admin,
      sourceIPs: ['127.0.0.1'],
      userAgent: 'audit-test/1.0',
      objectRef: { resource: 'pipelines', namespace: 'default', name: 'missing', apiGroup: 'cairn.dev', apiVersion: 'v1' },
      requestReceivedTimestamp: received.requestReceivedTimestamp,
    };
    expect(received).toEqual({ ...common, stage: 'RequestReceived', stageTimestamp: received.requestReceivedTimestamp });
    expect(complete).toEqual({
      ...common,
      stage: 'ResponseComplete',
      responseStatus: {
        metadata: {},
        status: 'Failure',
        reason: 'NotFound',
        message: 'pipelines.cairn.dev "missing" not found',
        details: { name: 'missing', group: 'cairn.dev', kind: 'pipelines' },
        code: 404,
      },
      stageTimestamp: complete.stageTimestamp,
      annotations: {
        'authorization.k8s.io/decision': 'allow',
        'authorization.k8s.io/reason': 'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"',
      },
    });
    expect(received.requestReceivedTimestamp).toMatch(microTime);
    expect(complete.stageTimestamp).toMatch(microTime);
    expect(complete.stageTimestamp >= complete.requestReceivedTimestamp).toBe(true);
  });

  it('records at Request the body as sent, and names the created object in objectRef; no response object', async () => {
    const body = pipeline('sent', { replicas: 2 });
    const { res, events } = await audited('POST', pipelinesIn('req'), 2, { body });
    expect(res.status).toBe(201);
    const complete = events[1];
    expect(complete).toMatchObject({
      level: 'Request',
      verb: 'create',
      objectRef: { resource: 'pipelines', namespace: 'req', name: 'sent', apiGroup: 'cairn.dev', apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 201 },
      requestObject: body,
    });
    expect(complete.responseObject).toBeUndefined();
    expect(events[0].requestObject).toBeUndefined();
  });

  it('records a patch document and DeleteOptions as the request object, and an update’s resourceVersion in objectRef', async () => {
    const created = await server.request('POST', pipelinesIn('req'), { body: pipeline('patched') });
    const patch = { metadata: { labels: { tier: 'gold' } } };
    const patched = await audited('PATCH', `${pipelinesIn('req')}/patched`, 2, { body: patch, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(patched.res.status).toBe(200);
    expect(patched.events[1]).toMatchObject({ verb: 'patch', requestObject: patch, responseStatus: { code: 200 } });

    const update = {
      ...created.json,
      metadata: { ...created.json.metadata, labels: { tier: 'silver' }, resourceVersion: patched.res.json.metadata.resourceVersion },
    };
    const updated = await audited('PUT', `${pipelinesIn('req')}/patched`, 2, { body: update });
    expect(updated.res.status).toBe(200);
    expect(updated.events[1].objectRef).toEqual({
      resource: 'pipelines',
      namespace: 'req',
      name: 'patched',
      uid: created.json.metadata.uid,
      apiGroup: 'cairn.dev',
      apiVersion: 'v1',
      resourceVersion: patched.res.json.metadata.resourceVersion,
    });
    expect(updated.events[1].requestObject.metadata.labels).toEqual({ tier: 'silver' });

    const options = { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' };
    const deleted = await audited('DELETE', `${pipelinesIn('req')}/patched`, 2, { body: options });
    expect(deleted.res.status).toBe(200);
    expect(deleted.events[1]).toMatchObject({ verb: 'delete', objectRef: { name: 'patched' }, requestObject: options, responseStatus: { code: 200 } });
  });

  it('records at RequestResponse the object answered, managedFields and all, for objects and lists', async () => {
    const created = await audited('POST', pipelinesIn('full'), 2, { body: pipeline('whole') });
    expect(created.events[1].responseObject).toEqual(created.res.json);
    expect(created.events[1].responseObject.metadata.managedFields).toHaveLength(1);

    const list = await audited('GET', pipelinesIn('full'), 2);
    expect(list.events[1].responseObject).toEqual(list.res.json);
    expect(list.events[1].responseObject).toMatchObject({ kind: 'PipelineList', items: [{ metadata: { name: 'whole' } }] });
  });

  it('leaves managedFields out of request and response objects with omitManagedFields', async () => {
    const body = { ...pipeline('lean'), metadata: { name: 'lean', managedFields: [{ manager: 'sent', operation: 'Update', apiVersion: 'cairn.dev/v1' }] } };
    const created = await audited('POST', pipelinesIn('trimmed'), 2, { body });
    expect(created.res.json.metadata.managedFields).toBeDefined();
    const complete = created.events[1];
    expect(complete.requestObject.metadata).toEqual({ name: 'lean' });
    expect(complete.responseObject.metadata.managedFields).toBeUndefined();
    expect(complete.responseObject.metadata.name).toBe('lean');

    const list = await audited('GET', pipelinesIn('trimmed'), 2);
    expect(list.events[1].responseObject.items.map((item: LoggedAuditEvent) => [item.metadata.name, item.metadata.managedFields])).toEqual([
      ['lean', undefined],
    ]);
  });

  it('leaves out the stages a rule omits', async () => {
    const { auditID, events } = await audited('GET', pipelinesIn('quiet'), 1);
    // A later request's events are written after this one's: once they are there, nothing more of it will be.
    await audited('GET', `${pipelinesIn('default')}/later`, 2);
    expect(events.map((e) => e.stage)).toEqual(['ResponseComplete']);
    expect((await readAuditLog(log)).filter((e) => e.auditID === auditID)).toHaveLength(1);
  });

  it('audits nothing at level None', async () => {
    const health = await server.request('GET', '/healthz');
    await audited('GET', `${pipelinesIn('default')}/after-health`, 2);
    expect((await readAuditLog(log)).filter((e) => e.auditID === health.headers['audit-id'])).toEqual([]);
  });

  it('records a watch’s ResponseStarted when its headers go out, and ResponseComplete when it ends', async () => {
    const endpoint: ServerEndpoint = server;
    const watch = await new Promise<{ auditID: string; leave: () => void }>((resolve, reject) => {
      const req = https.get(
        `${endpoint.url}${pipelinesIn('default')}?watch=true`,
        { ca: server.pki.servingCaPem, cert: server.pki.adminCertPem, key: server.pki.adminKeyPem, agent: false },
        (res) => {
          res.on('error', () => undefined);
          res.resume();
          resolve({ auditID: String(res.headers['audit-id']), leave: () => req.destroy() });
        },
      );
      req.on('error', (error) => (error.message === 'socket hang up' ? undefined : reject(error)));
    });
    const started = await eventsOf(log, watch.auditID, 2);
    expect(started.map((e) => [e.stage, e.verb, e.responseStatus])).toEqual([
      ['RequestReceived', 'watch', undefined],
      ['ResponseStarted', 'watch', { metadata: {}, code: 200 }],
    ]);
    watch.leave();
    const ended = await eventsOf(log, watch.auditID, 3);
    expect(ended[2]).toMatchObject({ stage: 'ResponseComplete', verb: 'watch', responseStatus: { code: 200 } });
  });

  it('records a log read’s ResponseStarted, as kube counts logs long-running, and an append’s Success Status', async () => {
    expect((await server.request('POST', pipelinesIn('default'), { body: pipeline('logged') })).status).toBe(201);
    const append = await audited('POST', `${pipelinesIn('default')}/logged/log`, 2, { body: { step: 'fetch', lines: ['fetched'] } });
    expect(append.res.status).toBe(201);
    expect(append.events[1]).toMatchObject({
      verb: 'create',
      objectRef: { resource: 'pipelines', namespace: 'default', name: 'logged', subresource: 'log' },
      responseStatus: { metadata: {}, status: 'Success', code: 201 },
    });
    const read = await audited('GET', `${pipelinesIn('default')}/logged/log`, 3);
    expect(read.res.text).toBe('fetched\n');
    expect(read.events.map((e) => [e.stage, e.verb, e.objectRef.subresource, e.responseStatus?.code])).toEqual([
      ['RequestReceived', 'get', 'log', undefined],
      ['ResponseStarted', 'get', 'log', 200],
      ['ResponseComplete', 'get', 'log', 200],
    ]);
  });

  it('records a request refused 403 with the authorization decision', async () => {
    const bob = issueClientCertificate(server.pki.clientCaPem, server.pki.clientCaKeyPem, { commonName: 'bob', organizations: ['devs'] });
    const { res, events } = await audited('DELETE', `${pipelinesIn('default')}/anything`, 2, { clientCert: bob });
    expect(res.status).toBe(403);
    expect(events[1]).toMatchObject({
      user: { username: 'bob', groups: ['devs', 'system:authenticated'] },
      verb: 'delete',
      responseStatus: { status: 'Failure', reason: 'Forbidden', code: 403 },
      annotations: { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' },
    });
  });

  it('records an anonymous request refused 401 with the authorization decision', async () => {
    const { res, events } = await audited('GET', pipelinesIn('default'), 2, { clientCert: null });
    expect(res.status).toBe(401);
    expect(events[1]).toMatchObject({
      user: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
      verb: 'list',
      responseStatus: { status: 'Failure', reason: 'Unauthorized', code: 401 },
      annotations: { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' },
    });
  });

  it('records the source IPs as kube does: the X-Forwarded-For chain, then the peer', async () => {
    const { events } = await audited('GET', '/apis', 2, { headers: { 'X-Forwarded-For': '10.0.0.1, 10.0.0.2', 'Audit-Id': 'from-the-aggregator' } });
    expect(events[0]).toMatchObject({ auditID: 'from-the-aggregator', sourceIPs: ['10.0.0.1', '10.0.0.2', '127.0.0.1'], requestURI: '/apis' });
    expect(events[0].objectRef).toBeUndefined();
  });
});

describe('audit log rotation', () => {
  it('rotates at --audit-log-maxsize megabytes into lumberjack’s backup names, keeping --audit-log-maxbackup of them', { timeout: 60_000 }, async () => {
    const policyFile = await tempFile('policy.yaml', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n  verbs: [create]\n');
    const dir = dirname(policyFile);
    const log = join(dir, 'audit.log');
    // On PostgreSQL, as every server of this file but the first: the backend is not the subject, and PGlite's start costs more CPU.
    const server = await startTestServer({
      backend: 'postgres',
      args: ['--audit-policy-file', policyFile, '--audit-log-path', log, '--audit-log-maxsize', '1', '--audit-log-maxbackup', '1'],
    });
    try {
      // Each ResponseComplete holds the ~200 KB annotation twice (request and response): five per megabyte at most.
      const big = 'x'.repeat(200_000);
      let lastID = '';
      for (let n = 0; n < 8; n++) {
        const body = { ...pipeline(`big-${n}`), metadata: { name: `big-${n}`, annotations: { filler: big } } };
        const res = await server.request('POST', pipelinesIn('default'), { body });
        expect(res.status).toBe(201);
        lastID = String(res.headers['audit-id']);
      }
      await eventsOf(log, lastID, 2);
      const files = (await readdir(dir)).filter((f) => f.startsWith('audit')).sort();
      expect(files).toHaveLength(2);
      expect(files[0]).toMatch(/^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log$/);
      expect(files[1]).toBe('audit.log');
      for (const file of files) {
        expect((await stat(join(dir, file))).size).toBeLessThanOrEqual(1024 * 1024);
        for (const event of await readAuditLog(join(dir, file))) expect(event.kind).toBe('Event');
      }
      // Sixteen events were written; with one backup kept, the oldest are gone.
      const kept = [...(await readAuditLog(join(dir, files[0]))), ...(await readAuditLog(log))];
      expect(kept.length).toBeLessThan(16);
      expect(kept.at(-1)).toMatchObject({ auditID: lastID, stage: 'ResponseComplete' });
    } finally {
      await server.destroy();
    }
  });
});

describe('audit configuration', () => {
  it.each([
    ['a policy with no rules', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n', 'loaded illegal policy with 0 rules'],
    [
      'a policy of a removed version',
      'apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: Metadata\n',
      'no kind "Policy" is registered for version "audit.k8s.io/v1beta1"',
    ],
    ['an invalid rule', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n', 'rules[0].level: Unsupported value: "Loud"'],
  ])('refuses to start with %s, naming the problem and the file', async (_, text, message) => {
    const policyFile = await tempFile('policy.yaml', text);
    const config = parseConfig(['--port', '0', '--data-dir', join(dirname(policyFile), 'data'), '--no-controller', '--audit-policy-file', policyFile], {});
    await expect(startServer(config, pino({ level: 'silent' }))).rejects.toThrow(`loading audit policy file: `);
    await expect(startServer(config, pino({ level: 'silent' }))).rejects.toThrow(
      new RegExp(`${message.replace(/[[\]().*]/g, '\\$&')}.*: from file ${policyFile}`),
    );
  });

  it('refuses to start without a readable policy file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-audit-nofile-'));
    const config = parseConfig(['--port', '0', '--data-dir', dir, '--no-controller', '--audit-policy-file', '/nonexistent/policy.yaml'], {});
    try {
      await expect(startServer(config, pino({ level: 'silent' }))).rejects.toThrow(
        'loading audit policy file: failed to read file path "/nonexistent/policy.yaml"',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('writes nothing without a policy file, even with a log path, as kube-apiserver', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-audit-nopolicy-'));
    const server = await startTestServer({ backend: 'postgres', args: ['--audit-log-path', join(dir, 'audit.log')] });
    try {
      expect((await server.request('GET', pipelinesIn('default'))).status).toBe(200);
    } finally {
      await server.destroy();
    }
    expect(await readAuditLog(join(dir, 'audit.log'))).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });
});

describe('audited failures, in process', () => {
  /** Serves one GET of pipelines with `options` over plain HTTP, returning its code and its audit events. */
  async function served(options: Pick<AppOptions, 'registry' | 'authorizer'>): Promise<{ status: number; events: AuditEvent[] }> {
    const events: AuditEvent[] = [];
    const app = createApp({
      groups: servedGroups,
      authenticators: [{ authenticate: () => ({ name: 'jane', groups: ['system:masters', 'system:authenticated'] }) }],
      audit: { processEvents: (...e) => events.push(...e) },
      auditPolicy: auditPolicyRuleEvaluator({ rules: [{ level: 'Metadata' }] }),
      livezChecks: [],
      readyzChecks: [],
      logger: pino({ level: 'silent' }),
      shutdown: new AbortController().signal,
      watchBookmarkIntervalMs: 60_000,
      ...options,
    });
    const server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}${pipelinesIn('default')}`);
      await res.arrayBuffer();
      return { status: res.status, events: events.filter((e) => e.auditID === res.headers.get('audit-id')) };
    } finally {
      server.close();
    }
  }

  it('records Panic instead of ResponseComplete when a handler fails unexpectedly, with a 500 InternalError status', async () => {
    const { status, events } = await served({
      registry: () => {
        throw new TypeError('the registry is broken');
      },
      authorizer: defaultAuthorizer(),
    });
    expect(status).toBe(500);
    expect(events.map((e) => [e.stage, e.responseStatus])).toEqual([
      ['RequestReceived', undefined],
      ['Panic', { code: 500, status: 'Failure', reason: 'InternalError', message: "APIServer panic'd: TypeError: the registry is broken" }],
    ]);
  });

  it('records an authorizer’s failure as kube does: 500, and the reason "internal error"', async () => {
    const { status, events } = await served({
      registry: () => undefined,
      authorizer: {
        authorize: () => {
          throw internal('SubjectAccessReview failed: HTTP 503');
        },
      },
    });
    expect(status).toBe(500);
    expect(events.map((e) => [e.stage, e.responseStatus?.code, e.annotations])).toEqual([
      ['RequestReceived', undefined, undefined],
      ['ResponseComplete', 500, { 'authorization.k8s.io/reason': 'internal error' }],
    ]);
  });
});

describe('shutdown', () => {
  it.each(['a file', 'stdout'])(
    'leaves the last request’s ResponseComplete in the log (%s) when SIGTERM ends the process',
    { timeout: 60_000 },
    async (where) => {
      const policyFile = await tempFile('policy.yaml', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
      const dir = dirname(policyFile);
      const log = where === 'stdout' ? '-' : join(dir, 'audit.log');
      const server = await spawnServer(
        [
          // No in-process clients (the sample controller, the garbage collector): their watches would end last too.
          '--no-controller',
          '--garbage-collector=off',
          '--audit-policy-file',
          policyFile,
          '--audit-log-path',
          log,
          '--database-url',
          await testDatabaseUrl(),
        ],
        { dataDir: join(dir, 'data'), env: { LOG_LEVEL: 'info' } },
      );
      // With `-`, the events are the lines of stdout that are Events, among pino's.
      const events = async (): Promise<LoggedAuditEvent[]> => (log === '-' ? server.stdoutLines.filter((line) => line.kind === 'Event') : readAuditLog(log));
      try {
        const endpoint = await server.endpoint();
        const { url } = endpoint;
        const { servingCaPem, adminCertPem, adminKeyPem } = endpoint.pki!;
        expect((await requestServer(endpoint, 'POST', pipelinesIn('default'), { body: pipeline('first') })).status).toBe(201);
        // A watch ends only as the server shuts down: its ResponseComplete is the last event, written during the exit.
        const watchID = await new Promise<string>((resolve, reject) => {
          https
            .get(`${url}${pipelinesIn('default')}?watch=true`, { ca: servingCaPem, cert: adminCertPem, key: adminKeyPem, agent: false }, (res) => {
              res.on('error', () => undefined);
              res.resume();
              resolve(String(res.headers['audit-id']));
            })
            .on('error', reject);
        });
        await eventually('the watch’s ResponseStarted', 10_000, async () =>
          (await events()).some((e) => e.auditID === watchID && e.stage === 'ResponseStarted'),
        );
        server.child.kill('SIGTERM');
        expect(await server.exited).toBe(0);
        expect((await events()).at(-1)).toMatchObject({ auditID: watchID, stage: 'ResponseComplete', verb: 'watch' });
      } finally {
        await server.stop();
      }
    },
  );
});
