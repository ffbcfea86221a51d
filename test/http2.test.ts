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
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipeline, startTestServer, type TestServer } from './support/test-server.js';

const group = '/apis/cairn.dev/v1';
const pipelines = `${group}/namespaces/default/pipelines`;
const watchCount = 1000;
/** Every tenth watch is followed by an ordinary GET on the same session. */
const getEvery = 10;

let server: TestServer;
const sessions = new Set<ClientHttp2Session>();

process.on('warning', (w) => console.log('WARNING', w.name, w.message));
beforeAll(async () => {
  const t0 = performance.now();
  server = await startTestServer({ backend: 'pglite' });
  console.log('TRACE server start', Math.round(performance.now() - t0));
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
function getHttp1(path: string, alpn?: string[]): Promise<Answer & { readonly httpVersion: string; readonly alpn: string | false }> {
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
  #waiter: { readonly test: (e: WatchEvent) => boolean; readonly resolve: () => void } | undefined;

  constructor(session: ClientHttp2Session, path: string) {
    this.stream = session.request({ ':method': 'GET', ':path': path });
    this.stream.setEncoding('utf8');
    this.status = new Promise((resolve) => this.stream.once('response', (headers) => resolve(Number(headers[':status']))));
    this.closed = new Promise((resolve) => this.stream.once('close', () => resolve()));
    this.stream.on('error', (error) => (this.error = error));
    this.stream.on('data', (chunk: string) => this.#receive(chunk));
    this.stream.end();
  }

  /** Resolves at the first event (already received or not) that passes `test`. */
  next(test: (e: WatchEvent) => boolean): Promise<void> {
    if (this.events.some(test)) return Promise.resolve();
    return new Promise((resolve) => (this.#waiter = { test, resolve }));
  }

  #receive(chunk: string): void {
    this.#buffer += chunk;
    let newline: number;
    while ((newline = this.#buffer.indexOf('\n')) >= 0) {
      const event = JSON.parse(this.#buffer.slice(0, newline)) as WatchEvent;
      this.#buffer = this.#buffer.slice(newline + 1);
      this.events.push(event);
      if (this.#waiter?.test(event)) {
        this.#waiter.resolve();
        this.#waiter = undefined;
      }
    }
  }
}

/** `apiserver_request_total` for GETs answered 200: the watch handler counts its request once the watch has ended. */
async function completedGets(): Promise<number> {
  const res = await server.request('GET', '/metrics');
  expect(res.status).toBe(200);
  const line = res.text.split('\n').find((l) => l.startsWith('apiserver_request_total{') && l.includes('verb="GET"') && l.includes('code="200"'));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

/** The resourceVersion of the current pipeline list: a watch from it starts with no events. */
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

/** Opens `count` watches on `session`, with an ordinary GET after every `getEvery`-th. */
function openWatches(session: ClientHttp2Session, count: number, rv: string): { watches: Watch[]; gets: Promise<Answer>[] } {
  const watches: Watch[] = [];
  const gets: Promise<Answer>[] = [];
  for (let i = 0; i < count; i++) {
    watches.push(new Watch(session, `${pipelines}?watch=true&resourceVersion=${rv}`));
    if (i % getEvery === 0) gets.push(get(session, i % (2 * getEvery) === 0 ? group : pipelines));
  }
  return { watches, gets };
}

/** Checks that every watch sees the ADDED event of `name` as its next event. */
async function expectAllSeeAdded(watches: readonly Watch[], name: string, ms: number): Promise<void> {
  await within(
    ms,
    `ADDED ${name} on ${watches.length} watches`,
    Promise.all(watches.map((w) => w.next((e) => e.type === 'ADDED' && e.object.metadata?.name === name))),
  );
  for (const watch of watches) {
    const added = watch.events.at(-1)!;
    expect(added).toMatchObject({ type: 'ADDED', object: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name, namespace: 'default' } } });
  }
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
    const session = await connect();
    expect(session.remoteSettings.maxConcurrentStreams).toBeGreaterThanOrEqual(watchCount);
    const sessionErrors: Error[] = [];
    session.on('error', (error) => sessionErrors.push(error));

    const h = monitorEventLoopDelay({ resolution: 5 }); h.enable();
    let t = performance.now();
    const lap = (what: string) => { console.log('TRACE', what, Math.round(performance.now() - t), 'ms; loop delay max', Math.round(h.max / 1e6), 'p99', Math.round(h.percentile(99) / 1e6), 'rss MB', Math.round(process.memoryUsage().rss / 2**20)); h.reset(); t = performance.now(); };
    const rv = await currentResourceVersion();
    const { watches, gets } = openWatches(session, watchCount, rv);

    // Nothing has happened since `rv`: the 200s can only come from headers flushed up front.
    const statuses = await within(10_000, `response headers of ${watchCount} watches`, Promise.all(watches.map((w) => w.status)));
    lap('headers of 1000 watches');
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const answers = await within(10_000, `${gets.length} interleaved GETs`, Promise.all(gets));
    expect(answers.map((a) => a.status).filter((s) => s !== 200)).toEqual([]);
    expect(watches.filter((w) => w.events.length > 0)).toEqual([]);
    // All of them are open at once on this one connection.
    expect(watches.filter((w) => w.stream.closed)).toEqual([]);

    await createPipeline('h2-fanout');
    lap('gets');
    await expectAllSeeAdded(watches, 'h2-fanout', 10_000);
    lap('create + fanout');
    expect(watches.map((w) => w.events.length).filter((n) => n !== 1)).toEqual([]);

    // Cancel every watch (RST_STREAM CANCEL); the server must end each handler and its watcher.
    const before = await completedGets();
    for (const watch of watches) watch.stream.close();
    lap('metrics before');
    await within(5000, `client close of ${watchCount} streams`, Promise.all(watches.map((w) => w.closed)));
    expect(watches.filter((w) => w.error !== undefined).map((w) => w.error?.message)).toEqual([]);
    lap('client close');
    let polls = 1;
    await within(
      10_000,
      `the server ending ${watchCount} cancelled watches`,
      (async () => {
        // Each /metrics read is itself counted once it has been answered.
        while ((await completedGets()) - before - polls < watchCount) {
          polls++;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })(),
    );
    lap('server end, polls=' + polls);
    expect((await completedGets()) - before - polls - 1).toBe(watchCount);
    await closeSession(session);
    expect(sessionErrors).toEqual([]);

    // A further batch on a new session: watches open, see the next event, GETs answer.
    const next = await connect();
    const again = openWatches(next, 100, await currentResourceVersion());
    const againStatuses = await within(5000, 'response headers of the next batch', Promise.all(again.watches.map((w) => w.status)));
    expect(againStatuses.filter((s) => s !== 200)).toEqual([]);
    expect((await within(5000, 'GETs of the next batch', Promise.all(again.gets))).map((a) => a.status).filter((s) => s !== 200)).toEqual([]);
    await createPipeline('h2-after-cancel');
    await expectAllSeeAdded(again.watches, 'h2-after-cancel', 5000);
    for (const watch of again.watches) watch.stream.close();
    await within(5000, 'client close of the next batch', Promise.all(again.watches.map((w) => w.closed)));
    await closeSession(next);
    lap('second batch');
  });
});
