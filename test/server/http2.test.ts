/**
 * HTTP/2 end to end: ALPN picks h2 or HTTP/1.1 on the one TLS port, one HTTP/2
 * connection carries a thousand concurrent watches (as the kube aggregator
 * multiplexes them), every one of them sees an event, and cancelling them frees the
 * server's watchers.
 */
import { once } from 'node:events';
import http2, { type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipeline, startTestServer, type TestServer } from '../support/test-server.js';

const group = '/apis/cairn.dev/v1';
const pipelines = `${group}/namespaces/default/pipelines`;
const watchCount = 1000;
/** Every tenth watch is followed by an ordinary GET on the same session. */
const getEvery = 10;

let server: TestServer;
const sessions = new Set<ClientHttp2Session>();

beforeAll(async () => {
  server = await startTestServer({ backend: 'pglite' });
});

afterAll(async () => {
  for (const session of sessions) session.destroy();
  await server?.destroy();
});

/** Rejects when `promise` has not settled within `ms`: a broken server fails the test instead of hanging it. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Opens an HTTP/2 session as the admin user and waits for the server's SETTINGS. */
async function connect(): Promise<ClientHttp2Session> {
  const session = http2.connect(server.url, { ca: server.pki.servingCaPem, cert: server.pki.adminCertPem, key: server.pki.adminKeyPem });
  sessions.add(session);
  session.once('close', () => sessions.delete(session));
  // Until the server's SETTINGS arrive, remoteSettings shows the protocol defaults (unlimited streams).
  await within(5000, 'HTTP/2 connect and SETTINGS', once(session, 'remoteSettings'));
  return session;
}

/** Closes a session and waits until it is gone. */
async function closeSession(session: ClientHttp2Session): Promise<void> {
  if (session.destroyed) return;
  const closed = once(session, 'close');
  session.close();
  await within(5000, 'HTTP/2 session close', closed);
}

interface Answer {
  readonly status: number;
  readonly text: string;
}

/** A GET on an HTTP/2 session, its body read in full. */
function get(session: ClientHttp2Session, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': 'GET', ':path': path });
    let status = 0;
    const chunks: Buffer[] = [];
    stream.on('response', (headers) => (status = Number(headers[':status'])));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve({ status, text: Buffer.concat(chunks).toString('utf8') }));
    stream.on('error', reject);
    stream.end();
  });
}

/** A GET over HTTP/1.1 (node:https), the ALPN protocol it negotiated beside the answer. */
function getHttp1(path: string, alpn?: string[]): Promise<Answer & { readonly httpVersion: string; readonly alpn: string | false | null }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${server.url}${path}`,
      { ca: server.pki.servingCaPem, cert: server.pki.adminCertPem, key: server.pki.adminKeyPem, agent: false, ...(alpn ? { ALPNProtocols: alpn } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            httpVersion: res.httpVersion,
            alpn: (res.socket as TLSSocket).alpnProtocol,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

interface WatchEvent {
  readonly type: string;
  readonly object: { readonly kind?: string; readonly metadata?: { readonly name?: string; readonly resourceVersion?: string } };
}

/** One watch stream: its response status, and the newline-delimited events it has received. */
class Watch {
  readonly stream: ClientHttp2Stream;
  /** Resolves with `:status` once the response headers arrive. */
  readonly status: Promise<number>;
  readonly events: WatchEvent[] = [];
  /** Resolves when the stream has closed on the client. */
  readonly closed: Promise<void>;
  error: Error | undefined;
  #buffer = '';
  readonly #waiters = new Set<() => void>();

  constructor(session: ClientHttp2Session, path: string) {
    this.stream = session.request({ ':method': 'GET', ':path': path });
    this.stream.setEncoding('utf8');
    this.status = new Promise((resolve) => this.stream.once('response', (headers) => resolve(Number(headers[':status']))));
    this.closed = new Promise((resolve) => this.stream.once('close', () => resolve()));
    this.stream.on('error', (error) => (this.error = error));
    this.stream.on('data', (chunk: string) => this.#receive(chunk));
    this.stream.end();
  }

  /** Resolves once an event (already received or not) passes `test`. */
  next(test: (e: WatchEvent) => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (!this.events.some(test)) return;
        this.#waiters.delete(check);
        resolve();
      };
      this.#waiters.add(check);
      check();
    });
  }

  #receive(chunk: string): void {
    this.#buffer += chunk;
    let newline: number;
    while ((newline = this.#buffer.indexOf('\n')) >= 0) {
      this.events.push(JSON.parse(this.#buffer.slice(0, newline)) as WatchEvent);
      this.#buffer = this.#buffer.slice(newline + 1);
    }
    for (const waiter of [...this.#waiters]) waiter();
  }
}

/** Retries `check` until it holds; throws after `ms` instead of polling forever. */
async function eventually(ms: number, what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not done within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `apiserver_request_total` for pipeline WATCHes answered 200: a watch is counted once its handler has returned. */
async function completedWatches(): Promise<number> {
  const res = await server.request('GET', '/metrics');
  expect(res.status).toBe(200);
  const lines = res.text
    .split('\n')
    .filter((l) => l.startsWith('apiserver_request_total{') && l.includes('verb="WATCH"') && l.includes('resource="pipelines"') && l.includes('code="200"'));
  return lines.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** The resourceVersion of the current pipeline list: a watch from it has nothing to send until the next write. */
async function currentResourceVersion(): Promise<string> {
  const list = await server.request('GET', pipelines);
  expect(list.status).toBe(200);
  return list.json.metadata.resourceVersion as string;
}

/** Creates a pipeline through an HTTP/1.1 client, separate from the session under test. */
async function createPipeline(name: string): Promise<void> {
  const created = await server.request('POST', pipelines, { body: pipeline(name) });
  expect(created.status, created.text).toBe(201);
}

/** Opens `count` watches from `rv` on `session`, with an ordinary GET after every `getEvery`-th. */
function openWatches(session: ClientHttp2Session, count: number, rv: string): { watches: Watch[]; gets: Promise<Answer>[] } {
  const watches: Watch[] = [];
  const gets: Promise<Answer>[] = [];
  for (let i = 0; i < count; i++) {
    watches.push(new Watch(session, `${pipelines}?watch=true&resourceVersion=${rv}`));
    if (i % getEvery === 0) gets.push(get(session, i % (2 * getEvery) === 0 ? group : pipelines));
  }
  return { watches, gets };
}

/** Checks every watch answers 200 at once, with no event yet, and every interleaved GET answers 200. */
async function expectOpen(batch: { watches: readonly Watch[]; gets: readonly Promise<Answer>[] }, ms: number): Promise<void> {
  const statuses = await within(ms, `response headers of ${batch.watches.length} watches`, Promise.all(batch.watches.map((w) => w.status)));
  expect(
    statuses.filter((s) => s !== 200),
    'watch statuses other than 200',
  ).toEqual([]);
  const answers = await within(ms, `${batch.gets.length} interleaved GETs`, Promise.all(batch.gets));
  expect(
    answers.filter((a) => a.status !== 200).map((a) => a.text),
    'GETs not answered 200',
  ).toEqual([]);
  expect(batch.watches.filter((w) => w.events.length > 0).length, 'watches with an event before any write').toBe(0);
}

/** Checks every watch receives the ADDED event of `name`, and nothing else. */
async function expectAllSeeAdded(watches: readonly Watch[], name: string, ms: number): Promise<void> {
  await within(
    ms,
    `ADDED ${name} on ${watches.length} watches`,
    Promise.all(watches.map((w) => w.next((e) => e.type === 'ADDED' && e.object.metadata?.name === name))),
  );
  expect(
    watches.filter((w) => w.events.length !== 1).map((w) => w.events.map((e) => e.type)),
    'watches with other events',
  ).toEqual([]);
  expect(watches[0].events[0]).toMatchObject({
    type: 'ADDED',
    object: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name, namespace: 'default' } },
  });
}

/** Cancels every watch (RST_STREAM CANCEL) and waits until the client has closed them all. */
async function cancel(watches: readonly Watch[]): Promise<void> {
  for (const watch of watches) watch.stream.close();
  await within(5000, `client close of ${watches.length} streams`, Promise.all(watches.map((w) => w.closed)));
  expect(
    watches.filter((w) => w.error !== undefined).map((w) => w.error?.message),
    'stream errors',
  ).toEqual([]);
}

describe('HTTP/2 and HTTP/1.1 on one port', () => {
  it('answers an HTTP/1.1 client and an HTTP/2 client on the same port, choosing by ALPN', async () => {
    const plain = await getHttp1(group);
    expect(plain.status).toBe(200);
    expect(plain.httpVersion).toBe('1.1');
    expect(JSON.parse(plain.text)).toMatchObject({ kind: 'APIResourceList', groupVersion: 'cairn.dev/v1' });

    const negotiated = await getHttp1(group, ['http/1.1']);
    expect(negotiated.status).toBe(200);
    expect(negotiated.alpn).toBe('http/1.1');

    const session = await connect();
    expect(session.alpnProtocol).toBe('h2');
    const answer = await within(5000, 'HTTP/2 GET', get(session, group));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ kind: 'APIResourceList', groupVersion: 'cairn.dev/v1' });
    await closeSession(session);
  });
});

describe('a thousand watches on one HTTP/2 connection', () => {
  it('opens them with ordinary GETs interleaved, delivers an event to each, and frees them when cancelled', async () => {
    // A write first, so the watches start from a real resourceVersion rather than "0" (which lists first).
    await createPipeline('h2-seed');
    const session = await connect();
    expect(session.remoteSettings.maxConcurrentStreams).toBeGreaterThanOrEqual(watchCount);
    const sessionErrors: Error[] = [];
    session.on('error', (error) => sessionErrors.push(error));

    // Nothing is written after `rv` until the create below: the 200s can only come from headers flushed up front.
    const first = openWatches(session, watchCount, await currentResourceVersion());
    await expectOpen(first, 15_000);
    // All of them are open at once on this one connection.
    expect(first.watches.filter((w) => w.stream.closed).length, 'watches already closed').toBe(0);

    await createPipeline('h2-fanout');
    await expectAllSeeAdded(first.watches, 'h2-fanout', 10_000);

    // Cancelling every watch must end each handler, and so its storage watcher, on the server.
    // nghttp2's rapid-reset guard allows a burst of 1000 RST_STREAMs per connection, then 33/s:
    // more cancellations than that on one connection get it closed with GOAWAY INTERNAL_ERROR.
    const before = await completedWatches();
    await cancel(first.watches);
    await eventually(10_000, `the server ending ${watchCount} cancelled watches`, async () => {
      const ended = (await completedWatches()) - before;
      expect(ended).toBeLessThanOrEqual(watchCount);
      return ended === watchCount;
    });
    await closeSession(session);
    expect(sessionErrors).toEqual([]);

    // A further batch on a new connection: watches open and see the next write, GETs answer.
    const next = await connect();
    next.on('error', (error) => sessionErrors.push(error));
    const second = openWatches(next, watchCount, await currentResourceVersion());
    await expectOpen(second, 15_000);
    await createPipeline('h2-after-cancel');
    await expectAllSeeAdded(second.watches, 'h2-after-cancel', 10_000);
    await cancel(second.watches);
    await closeSession(next);
    expect(sessionErrors).toEqual([]);
  });
});
