/**
 * kube-apiserver's request limits on a real server: `--request-timeout` (and a request's
 * own `?timeout=`) answered with 504, `--max-requests-inflight` and
 * `--max-mutating-requests-inflight` with 429. The requests are made slow for real: a
 * transaction of the test holds one of Cairn's tables locked, so writes (and reads that
 * must see the latest write) wait in PostgreSQL as they would behind a stalled database.
 */
import { once } from 'node:events';
import http2 from 'node:http2';
import https from 'node:https';
import type { Socket } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { openLog } from '../support/log-client.js';
import { pipeline, sharedTestServer, type TestServer } from '../support/test-server.js';
import { openWatch } from '../support/watch-client.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/limits/pipelines';
const anonymous = { clientCert: null };

/**
 * Locks one of Cairn's tables until `release()`. `cairn_events`: every write waits (it
 * appends its event), reads do not. `cairn_resource_version`: reads that must see the
 * latest write wait too (they read the newest resourceVersion); a scrape of /metrics
 * does not wait for it for long (it reports how far the watch cache trails it).
 */
async function lockTable(server: TestServer, table: 'cairn_events' | 'cairn_resource_version'): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  return {
    async release() {
      await client.query('COMMIT');
      await client.end();
    },
  };
}

/** A keep-alive agent of one connection, counting the connections it opened. */
function oneConnectionAgent(): { agent: https.Agent; connections: () => number } {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  let opened = 0;
  const connect = agent.createConnection.bind(agent) as (...args: unknown[]) => Socket;
  (agent as unknown as { createConnection: (...args: unknown[]) => Socket }).createConnection = (...args) => {
    opened += 1;
    return connect(...args);
  };
  return { agent, connections: () => opened };
}

const timeoutStatus = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
  reason: 'Timeout',
  details: {},
  code: 504,
};

describe('--request-timeout', () => {
  const server = sharedTestServer({ backend: 'postgres', args: ['--request-timeout', '3s'] });

  it('answers 504 once a write outlasts its ?timeout=; the write, finishing later, sends nothing more', async () => {
    const { agent, connections } = oneConnectionAgent();
    const lock = await lockTable(server(), 'cairn_resource_version');
    let timedOut;
    try {
      timedOut = await server().request('POST', `${pipelines}?timeout=1s`, { body: pipeline('late'), agent });
    } finally {
      await lock.release();
    }
    expect(timedOut.status, timedOut.text).toBe(504);
    expect(timedOut.json).toEqual(timeoutStatus);
    // As kube warns, the server may still be processing the request: the write goes on once the database lets it.
    await eventually('the write to finish', 10_000, async () => (await server().request('GET', `${pipelines}/late`)).status === 200);
    // The same connection answers the next request cleanly: the write's own answer never reached it.
    const next = await server().request('GET', `${pipelines}/late`, { agent });
    expect(next.status, next.text).toBe(200);
    expect(next.json.metadata.name).toBe('late');
    expect(connections()).toBe(1);
    agent.destroy();
  });

  it('holds every request but long-running ones to the server’s timeout, a longer ?timeout= included; a watch and a log follow outlive it', async () => {
    expect((await server().request('POST', pipelines, { body: pipeline('followed') })).status).toBe(201);
    const list = await server().request('GET', pipelines);
    const watch = await openWatch(server(), `${pipelines}?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`);
    const follow = await openLog(server(), `${pipelines}/followed/log?follow=true`);
    try {
      const lock = await lockTable(server(), 'cairn_resource_version');
      let answers;
      try {
        answers = await Promise.all([
          server().request('POST', `${pipelines}?timeout=1h`, { body: pipeline('patient') }),
          server().request('POST', `${pipelines}?timeout=0s`, { body: pipeline('unbounded') }),
          server().request('GET', `${pipelines}/late`, { headers: { Accept: 'application/yaml' } }),
        ]);
      } finally {
        await lock.release();
      }
      for (const answer of answers.slice(0, 2)) expect(answer.json, answer.text).toEqual(timeoutStatus);
      // In the serializer the client accepts.
      expect(answers[2].status).toBe(504);
      expect(answers[2].headers['content-type']).toBe('application/yaml');
      expect(answers[2].text).toContain('reason: Timeout');
      // The server's timeout has passed since the watch began, and it still delivers.
      expect((await server().request('POST', pipelines, { body: pipeline('after-timeout') })).status).toBe(201);
      await eventually('the watch to see the create', 10_000, async () =>
        watch.events.some((event) => event.type === 'ADDED' && event.object.metadata.name === 'after-timeout'),
      );
      expect(watch.events.filter((event) => event.type === 'ERROR')).toEqual([]);
      expect((await server().request('POST', `${pipelines}/followed/log`, { body: { step: 'fetch', lines: ['after the timeout'] } })).status).toBe(201);
      await eventually('the follow to see the line', 10_000, async () => follow.text().includes('after the timeout'));
    } finally {
      watch.close();
      follow.close();
    }
  });

  it('cuts a response already started when its time runs out, so the client sees it incomplete', async () => {
    const crowded = '/apis/cairn.dev/v1/namespaces/limits-crowded/pipelines';
    // Enough to fill HTTP/2 flow control's 64 KiB window many times over.
    for (let i = 0; i < 100; i++) {
      const object = pipeline(`p${i}`);
      const res = await server().request('POST', crowded, { body: { ...object, metadata: { ...object.metadata, annotations: { pad: 'x'.repeat(2048) } } } });
      expect(res.status).toBe(201);
    }
    const session = http2.connect(server().url, { ca: server().pki.servingCaPem, cert: server().pki.adminCertPem, key: server().pki.adminKeyPem });
    try {
      // A whole list is streamed: its 200 goes out with the first items, and then the client reads nothing.
      const stream = session.request({ ':path': `${crowded}?timeout=1s` });
      const reset = new Promise<Error>((resolve) => stream.on('error', resolve));
      const [headers] = (await once(stream, 'response')) as [http2.IncomingHttpHeaders];
      expect(headers[':status']).toBe(200);
      // As Go's server resets it on ErrAbortHandler.
      expect((await reset).message).toBe('Stream closed with error code NGHTTP2_INTERNAL_ERROR');
      expect(stream.rstCode).toBe(http2.constants.NGHTTP2_INTERNAL_ERROR);
      expect(stream.readableEnded).toBe(false);
    } finally {
      session.destroy();
    }
  });

  it('refuses a ?timeout= that is not a Go duration with 400, as kube does', async () => {
    const res = await server().request('GET', `${pipelines}?timeout=soon`);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      kind: 'Status',
      reason: 'BadRequest',
      message: 'invalid timeout specified in the request URL - time: invalid duration "soon"',
    });
  });
});

describe('--max-requests-inflight and --max-mutating-requests-inflight', () => {
  const server = sharedTestServer({ backend: 'postgres', args: ['--max-requests-inflight', '1', '--max-mutating-requests-inflight', '1'] });
  /** `apiserver_current_inflight_requests` of `kind`, scraped as the admin (system:masters: served even past the limit, then not counted). */
  const inFlight = async (kind: string): Promise<number> => {
    const text = (await server().request('GET', '/metrics')).text;
    const line = text.split('\n').find((l) => l.startsWith(`apiserver_current_inflight_requests{request_kind="${kind}"} `));
    return Number(line?.split(' ')[1]);
  };
  const tooMany = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Too many requests, please try again later.',
    reason: 'TooManyRequests',
    details: { retryAfterSeconds: 1 },
    code: 429,
  };

  it('refuses a write past the mutating limit with 429 and Retry-After: 1, while reads and system:masters are served', async () => {
    const lock = await lockTable(server(), 'cairn_events');
    const held = server().request('POST', pipelines, { body: pipeline('held') });
    try {
      await eventually('the write held in flight', 10_000, async () => (await inFlight('mutating')) === 1);
      const refused = await server().request('POST', pipelines, { body: pipeline('refused'), ...anonymous });
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.json).toEqual(tooMany);
      expect((await server().request('GET', '/version', anonymous)).status).toBe(200);
      // The admin is served past the limit: its write waits on the database like the first, until its own timeout.
      const privileged = await server().request('POST', `${pipelines}?timeout=1s`, { body: pipeline('privileged') });
      expect(privileged.json).toMatchObject({ code: 504, reason: 'Timeout' });
      expect(await inFlight('mutating')).toBe(1);
    } finally {
      await lock.release();
    }
    expect((await held).status).toBe(201);
    await eventually('the writes to leave', 10_000, async () => (await inFlight('mutating')) === 0);
    // Now the anonymous write reaches authorization.
    expect((await server().request('POST', pipelines, { body: pipeline('refused'), ...anonymous })).status).toBe(401);
  });

  it('refuses a read past the read-only limit; an open watch and the health probes are not counted', async () => {
    const watch = await openWatch(server(), `${pipelines}?watch=true&resourceVersion=0`);
    try {
      // The watch holds no slot: with a limit of 1, this read would be refused otherwise.
      expect((await server().request('GET', '/version', anonymous)).status).toBe(200);
      const lock = await lockTable(server(), 'cairn_resource_version');
      const held = server().request('GET', pipelines);
      try {
        await eventually('the read held in flight', 10_000, async () => (await server().request('GET', '/version', anonymous)).status === 429);
        const refused = await server().request('GET', `${pipelines}/held`, anonymous);
        expect(refused.status).toBe(429);
        expect(refused.json).toEqual(tooMany);
        for (const probe of ['/healthz', '/livez', '/readyz']) expect((await server().request('GET', probe, anonymous)).status, probe).toBe(200);
      } finally {
        await lock.release();
      }
      expect((await held).status).toBe(200);
      expect(watch.status).toBe(200);
      await eventually('the read to leave', 10_000, async () => (await server().request('GET', '/version', anonymous)).status === 200);
      // The scrape counts itself, and nothing else is left in flight.
      expect([await inFlight('readOnly'), await inFlight('mutating')]).toEqual([1, 0]);
    } finally {
      watch.close();
    }
  });
});

describe('in-flight limits of 0', () => {
  const server = sharedTestServer({ backend: 'postgres', args: ['--max-requests-inflight', '0', '--max-mutating-requests-inflight', '0'] });

  it('refuse nothing, and the requests in flight are still counted', async () => {
    const lock = await lockTable(server(), 'cairn_events');
    const held = [server().request('POST', pipelines, { body: pipeline('one') }), server().request('POST', pipelines, { body: pipeline('two') })];
    try {
      await eventually('both writes held in flight', 10_000, async () => {
        const text = (await server().request('GET', '/metrics')).text;
        return text.includes('apiserver_current_inflight_requests{request_kind="mutating"} 2');
      });
      // Past any limit there would be: it reaches authorization.
      expect((await server().request('POST', pipelines, { body: pipeline('three'), ...anonymous })).status).toBe(401);
    } finally {
      await lock.release();
    }
    expect((await Promise.all(held)).map((res) => res.status)).toEqual([201, 201]);
  });
});

describe('a stalled database', () => {
  const server = sharedTestServer({ backend: 'postgres' });

  it('does not hold a scrape of /metrics: the event log lag keeps its last value', async () => {
    expect((await server().request('GET', '/metrics')).text).toMatch(/^cairn_event_log_lag \d+$/m);
    const lock = await lockTable(server(), 'cairn_resource_version');
    try {
      const scrape = await server().request('GET', '/metrics');
      expect(scrape.status).toBe(200);
      expect(scrape.text).toMatch(/^cairn_event_log_lag \d+$/m);
    } finally {
      await lock.release();
    }
  });
});
