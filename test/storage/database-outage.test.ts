/**
 * A PostgreSQL outage, as kube-apiserver and its clients see it: while the database is
 * down, discovery and liveness keep answering (the aggregator must not mark the
 * APIService unavailable), readiness fails on its `database` check, and data requests
 * get a retriable 503 Status, never a 500. Once the database is back, the same process
 * serves again without a restart. The cluster here is this file's own: the run's
 * shared one is never stopped.
 */
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.js';
import { pipeline, startTestServer, type TestResponse, type TestServer } from '../support/test-server.js';

const namespace = 'outage';
const pipelines = `/apis/cairn.dev/v1/namespaces/${namespace}/pipelines`;
const recoveryTimeoutMs = 20_000;

/** A watch response read line by line. */
interface Watch {
  readonly status: number;
  readonly events: any[];
  /** Resolves with the first event (already received or to come) that `match` accepts. */
  next(match: (event: any) => boolean, timeoutMs: number): Promise<any>;
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  close(): void;
}

/** Starts a watch as the admin user; resolves once the response headers arrive. */
function openWatch(server: TestServer, path: string): Promise<Watch> {
  return new Promise((resolve, reject) => {
    const events: any[] = [];
    const waiters = new Set<() => void>();
    let endedResolve!: () => void;
    const ended = new Promise<void>((r) => (endedResolve = r));
    const req = https.request(
      `${server.url}${path}`,
      { ca: server.pki.servingCaPem, cert: server.pki.adminCertPem, key: server.pki.adminKeyPem, agent: false },
      (res) => {
        let pending = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          pending += chunk;
          const lines = pending.split('\n');
          pending = lines.pop()!;
          for (const line of lines) if (line.trim() !== '') events.push(JSON.parse(line));
          for (const wake of waiters) wake();
        });
        res.on('close', () => {
          endedResolve();
          for (const wake of waiters) wake();
        });
        res.on('error', () => undefined);
        resolve({
          status: res.statusCode ?? 0,
          events,
          ended,
          close: () => req.destroy(),
          next(match, timeoutMs) {
            return new Promise((found, fail) => {
              const check = (): void => {
                const event = events.find(match);
                if (event) {
                  cleanup();
                  found(event);
                } else if (res.closed) {
                  cleanup();
                  fail(new Error(`the watch ended without the awaited event; got ${JSON.stringify(events)}`));
                }
              };
              const timer = setTimeout(() => {
                cleanup();
                fail(new Error(`no awaited watch event within ${timeoutMs} ms; got ${JSON.stringify(events)}`));
              }, timeoutMs);
              const cleanup = (): void => {
                clearTimeout(timer);
                waiters.delete(check);
              };
              waiters.add(check);
              check();
            });
          },
        });
      },
    );
    req.on('error', (error) => {
      endedResolve();
      reject(error);
    });
    req.end();
  });
}

/** Asserts the retriable Status kube clients back off on. */
function expectServiceUnavailable(response: TestResponse, what: string): void {
  expect(response.status, `${what}: ${response.text}`).toBe(503);
  expect(response.headers['content-type'], what).toMatch(/^application\/json/);
  expect(response.json, what).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 503, reason: 'ServiceUnavailable' });
  const retryAfter = Number(response.headers['retry-after']);
  expect(Number.isInteger(retryAfter) && retryAfter >= 1, `${what}: Retry-After ${String(response.headers['retry-after'])}`).toBe(true);
}

describe('a PostgreSQL outage', () => {
  let cluster: PostgresCluster;
  let server: TestServer;
  /** What would have crashed a real server process: the server runs in this one. */
  const uncaught: string[] = [];
  const recordException = (error: unknown): void => {
    uncaught.push(`uncaughtException ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  };
  const recordRejection = (error: unknown): void => {
    uncaught.push(`unhandledRejection ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  };

  beforeAll(async () => {
    process.on('uncaughtException', recordException);
    process.on('unhandledRejection', recordRejection);
    cluster = await startPostgresCluster();
    server = await startTestServer({ backend: 'postgres', databaseUrl: await cluster.createDatabase() });
  });

  afterAll(async () => {
    await server?.destroy();
    await cluster?.destroy();
    process.off('uncaughtException', recordException);
    process.off('unhandledRejection', recordRejection);
  });

  afterEach(() => {
    // An unhandled 'error' event (e.g. from a pg client that lost its server) ends a real server process.
    const found = uncaught.splice(0);
    expect(found.join('\n---\n'), 'uncaught errors that would crash the server process').toBe('');
  });

  it('keeps discovery and liveness up and answers data requests with 503 while the database is down', async () => {
    const created = await server.request('POST', pipelines, { body: pipeline('before-outage') });
    expect(created.status, created.text).toBe(201);
    const rv = created.json.metadata.resourceVersion as string;
    const watch = await openWatch(server, `${pipelines}?watch=true&resourceVersion=${rv}`);
    expect(watch.status).toBe(200);

    await cluster.stop();
    try {
      // The readiness ping is cached for a second: wait for it to notice.
      let readyz!: TestResponse;
      await eventually('readyz fails', 5_000, async () => {
        readyz = await server.request('GET', '/readyz?verbose');
        return readyz.status !== 200;
      });
      expect(readyz.status).toBe(500);
      expect(readyz.text.split('\n')).toContain('[-]database failed: reason withheld');
      expect(readyz.text).toContain('[+]ping ok');
      expect(readyz.text).toContain('readyz check failed');
      const readyzDatabase = await server.request('GET', '/readyz/database');
      expect(readyzDatabase.status).toBe(500);

      // The aggregator's availability probe and discovery do not need the database.
      const resources = await server.request('GET', '/apis/cairn.dev/v1');
      expect(resources.status, resources.text).toBe(200);
      expect(resources.json).toMatchObject({ kind: 'APIResourceList', groupVersion: 'cairn.dev/v1' });
      expect(resources.json.resources.map((r: any) => r.name)).toEqual(expect.arrayContaining(['pipelines', 'runnerclasses']));
      for (const path of ['/apis', '/apis/cairn.dev', '/healthz', '/livez', '/livez?verbose', '/version', '/openapi/v3']) {
        const response = await server.request('GET', path);
        expect(response.status, `${path}: ${response.text}`).toBe(200);
      }

      // Every data verb answers a retriable 503 Status.
      const requests: Array<[string, string, unknown?]> = [
        ['GET', `${pipelines}/before-outage`],
        ['GET', pipelines],
        ['GET', '/apis/cairn.dev/v1/pipelines'],
        ['GET', '/apis/cairn.dev/v1/runnerclasses'],
        ['GET', `${pipelines}?watch=true`],
        ['GET', `${pipelines}?watch=true&resourceVersion=${rv}`],
        ['POST', pipelines, pipeline('during-outage')],
        ['PUT', `${pipelines}/before-outage`, created.json],
        ['PATCH', `${pipelines}/before-outage`, { metadata: { labels: { patched: 'yes' } } }],
        ['DELETE', `${pipelines}/before-outage`],
        ['POST', '/apis/cairn.dev/v1/runnerclasses', { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name: 'during-outage' }, spec: {} }],
      ];
      for (const [method, path, body] of requests) {
        const headers = method === 'PATCH' ? { 'Content-Type': 'application/merge-patch+json' } : undefined;
        const response = await server.request(method, path, { body, headers });
        expectServiceUnavailable(response, `${method} ${path}`);
      }
      // Many at once too: the pool failing to connect must not turn into a 500 under load.
      const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => server.request('POST', pipelines, { body: pipeline(`burst-${i}`) })));
      for (const response of burst) expectServiceUnavailable(response, 'concurrent POST');

      // A watch begun before the outage does not take the server down.
      expect((await server.request('GET', '/livez')).status).toBe(200);
    } finally {
      await cluster.start();
      watch.close();
    }
  });

  it('serves again without a restart once the database is back', async () => {
    const created = await server.request('POST', pipelines, { body: pipeline('survivor') });
    expect(created.status, created.text).toBe(201);
    const oldWatch = await openWatch(server, `${pipelines}?watch=true&resourceVersion=${created.json.metadata.resourceVersion}`);
    expect(oldWatch.status).toBe(200);

    await cluster.stop();
    try {
      await eventually('readyz fails', 5_000, async () => (await server.request('GET', '/readyz')).status === 500);
      expectServiceUnavailable(await server.request('GET', `${pipelines}/survivor`), 'GET during outage');
      await sleep(2_000); // long enough for the LISTEN connection and the event-log poller to have failed and retried
    } finally {
      await cluster.start();
    }

    const restartedAt = Date.now();
    await eventually('readyz passes again', recoveryTimeoutMs, async () => (await server.request('GET', '/readyz')).status === 200);
    const readyz = await server.request('GET', '/readyz?verbose');
    expect(readyz.status, readyz.text).toBe(200);
    expect(readyz.text).toContain('[+]database ok');

    // Reads and writes work again, and nothing written before the outage was lost.
    await eventually('data requests succeed again', recoveryTimeoutMs - (Date.now() - restartedAt), async () => {
      const response = await server.request('GET', `${pipelines}/survivor`);
      if (response.status !== 200) expectServiceUnavailable(response, 'GET while recovering');
      return response.status === 200;
    });
    const survivor = await server.request('GET', `${pipelines}/survivor`);
    expect(survivor.json).toEqual(created.json);
    const before = await server.request('GET', `${pipelines}/before-outage`);
    expect(before.status, before.text).toBe(200);
    const list = await server.request('GET', pipelines);
    expect(list.status, list.text).toBe(200);
    expect(list.json.items.map((o: any) => o.metadata.name).sort()).toEqual(['before-outage', 'survivor']);

    // A watch started after recovery sees a write made after recovery.
    const watch = await openWatch(server, `${pipelines}?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`);
    try {
      expect(watch.status).toBe(200);
      const after = await server.request('POST', pipelines, { body: pipeline('after-outage') });
      expect(after.status, after.text).toBe(201);
      expect(BigInt(after.json.metadata.resourceVersion)).toBeGreaterThan(BigInt(created.json.metadata.resourceVersion));
      const event = await watch.next((e) => e.object?.metadata?.name === 'after-outage', 10_000);
      expect(event.type).toBe('ADDED');
      expect(event.object.metadata.resourceVersion).toBe(after.json.metadata.resourceVersion);

      // The watch begun before the outage either carries on with the same event or has
      // ended, so that its client re-lists; it never silently stalls.
      await Promise.race([oldWatch.next((e) => e.object?.metadata?.name === 'after-outage', 10_000), oldWatch.ended]);
      const seen = oldWatch.events.find((e) => e.object?.metadata?.name === 'after-outage');
      if (seen) expect(seen).toEqual(event);
      else expect(oldWatch.events.every((e) => e.type === 'ERROR')).toBe(true);
    } finally {
      watch.close();
      oldWatch.close();
    }
    // The cluster was stopped after `survivor` and the pre-outage watch was still open: the server is still alive.
    expect((await server.request('GET', '/livez')).status).toBe(200);
  });

  it('answers writes caught by the outage with 201 or 503, and keeps every 201', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `in-flight-${i}`);
    const writes = names.map(async (name, i) => {
      await sleep(i * 10);
      return server.request('POST', pipelines, { body: pipeline(name) });
    });
    await sleep(150);
    await cluster.stop();
    let responses: TestResponse[];
    try {
      responses = await Promise.all(writes);
    } finally {
      await cluster.start();
    }
    const statuses = responses.map((r) => r.status);
    for (const response of responses) {
      if (response.status !== 201) expectServiceUnavailable(response, 'POST caught by the outage');
    }
    expect(statuses).toContain(503);

    await eventually('readyz passes again', recoveryTimeoutMs, async () => (await server.request('GET', '/readyz')).status === 200);
    for (const [i, response] of responses.entries()) {
      if (response.status !== 201) continue;
      const read = await server.request('GET', `${pipelines}/${names[i]}`);
      expect(read.status, read.text).toBe(200);
      expect(read.json).toEqual(response.json);
    }
  });
});
