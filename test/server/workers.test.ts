/**
 * `--workers` through the real command: two workers on PostgreSQL share one port (the
 * kernel's connections spread over both), a watch on either sees creates that landed on
 * either, `/metrics` sums both, the sample controller runs in one, a killed worker is replaced by one that takes
 * connections only once it can serve them, SIGTERM stops all of them gracefully; on embedded PGlite one process
 * serves, and says so.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http2 from 'node:http2';
import { afterEach, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { spawnServer } from '../support/server-process.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { pipeline, requestServer, type ServerEndpoint } from '../support/test-server.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/workers/pipelines';

interface LogLine {
  readonly msg?: string;
  readonly pid?: number;
  readonly url?: string;
  readonly level?: number;
}

/** The command, its JSON log lines (every worker's) and its start banner. */
interface Command {
  readonly child: ChildProcess;
  readonly lines: readonly LogLine[];
  readonly banner: () => string;
  /** Its URL and admin PKI, once it is ready. */
  readonly endpoint: () => Promise<Required<ServerEndpoint>>;
  /** The exit code, null when a signal ended it. */
  readonly exited: Promise<number | null>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(args: readonly string[]): Promise<Command> {
  const server = await spawnServer(args, { env: { LOG_LEVEL: 'info' } });
  const lines = server.stdoutLines as readonly LogLine[];
  cleanups.push(async () => {
    server.child.kill('SIGKILL');
    // No orphan outlives the test, whatever it asserted.
    for (const pid of new Set(lines.flatMap((line) => (line.pid === undefined ? [] : [line.pid])))) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await server.stop();
  });
  return {
    child: server.child,
    lines,
    banner: () => server.stderr(),
    endpoint: async () => (await server.endpoint()) as Required<ServerEndpoint>,
    exited: server.exited,
  };
}

/** Whether process `pid` still exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const readyPids = (command: Command): number[] => command.lines.filter((line) => line.msg === 'ready').map((line) => line.pid!);

/** A watch of the pipelines on its own HTTP/2 connection: the names it has seen, and whether its connection is gone. */
function watch(endpoint: Required<ServerEndpoint>) {
  const session = http2.connect(endpoint.url, { ca: endpoint.pki.servingCaPem, cert: endpoint.pki.adminCertPem, key: endpoint.pki.adminKeyPem });
  const state = { names: [] as string[], closed: false, session };
  session.on('error', () => undefined);
  session.on('close', () => (state.closed = true));
  const stream = session.request({ ':path': `${pipelines}?watch=true` });
  stream.on('error', () => undefined);
  let buffer = '';
  stream.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const event = JSON.parse(buffer.slice(0, newline)) as { object: { metadata: { name: string } } };
      buffer = buffer.slice(newline + 1);
      state.names.push(event.object.metadata.name);
    }
  });
  const response = once(stream, 'response');
  cleanups.push(async () => void session.destroy());
  return { state, response };
}

it('serves with two workers on PostgreSQL, replaces a killed one and stops all on SIGTERM', { timeout: 180_000 }, async () => {
  const databaseUrl = await testDatabaseUrl();
  const command = await start(['--workers', '2', '--database-url', databaseUrl, '--garbage-collector=off', '--shutdown-grace', '5']);
  await eventually('two workers ready', 90_000, async () => new Set(readyPids(command)).size === 2, 100);
  const workers = [...new Set(readyPids(command))];
  expect(workers).not.toContain(command.child.pid);
  // One port for both, and one banner, from the primary.
  const urls = new Set(command.lines.filter((line) => line.msg === 'listening').map((line) => line.url));
  expect(urls.size).toBe(1);
  await eventually('the banner', 10_000, async () => command.banner().includes('with 2 workers'));
  expect(command.banner().match(/Cairn serves/g)).toHaveLength(1);

  const endpoint = await command.endpoint();

  // Watches on connections of their own, which the primary hands to the workers in turn.
  const watches = Array.from({ length: 6 }, () => watch(endpoint));
  for (const { response } of watches) await response;
  // Each create on a connection of its own, so they land on both workers too.
  const created = ['a', 'b', 'c', 'd'];
  for (const name of created) expect((await requestServer(endpoint, 'POST', pipelines, { body: pipeline(name) })).status).toBe(201);
  await eventually('every watch sees every create', 30_000, async () => watches.every(({ state }) => created.every((name) => state.names.includes(name))));

  // /metrics answers the sum across workers: every create is counted, whichever worker scraped.
  const metrics = await requestServer(endpoint, 'GET', '/metrics');
  expect(metrics.status).toBe(200);
  const posts = metrics.text
    .split('\n')
    .filter((line) => line.startsWith('apiserver_request_total{') && line.includes('verb="POST"') && line.includes('resource="pipelines",subresource=""'));
  const creates = posts.reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
  expect(creates, posts.join('\n')).toBe(created.length);
  // What every worker reads from the one database is reported once, not summed.
  const stored = metrics.text.split('\n').find((line) => line.startsWith('apiserver_storage_objects{resource="pipelines'));
  expect(stored?.split(' ').at(-1)).toBe(String(created.length));

  // The sample controller, which has no leader election, runs in one worker only.
  await eventually('the controller synced', 30_000, async () => command.lines.some((line) => line.msg === 'controller synced'));
  expect(new Set(command.lines.filter((line) => line.msg === 'controller synced').map((line) => line.pid)).size).toBe(1);

  // A killed worker takes its connections with it (so both workers held some) and is replaced.
  process.kill(workers[0], 'SIGKILL');
  await eventually('the killed worker’s watches end', 30_000, async () => watches.some(({ state }) => state.closed));
  const survivors = watches.filter(({ state }) => !state.closed);
  expect(survivors.length).toBeGreaterThan(0);
  await eventually('the primary saw the worker exit', 30_000, async () =>
    command.lines.some((line) => line.msg === 'worker exited; starting another' && line.pid === command.child.pid),
  );
  // While the replacement starts, the survivor serves every request: the replacement listens only once its storage is
  // ready, rather than take connections from the shared port that it would answer 503 (each request is a new connection).
  const replacement = (): number | undefined => readyPids(command).find((pid) => !workers.includes(pid));
  const steps = (pid: number) => command.lines.filter((line) => line.pid === pid && (line.msg === 'listening' || line.msg === 'ready')).map((line) => line.msg);
  const statuses = new Map<number, number>();
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const status = await requestServer(endpoint, 'GET', pipelines).then(
        (response) => response.status,
        () => 0,
      );
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  })();
  try {
    await eventually('a replacement ready and listening', 90_000, async () => replacement() !== undefined && steps(replacement()!).length === 2, 100);
  } finally {
    probing = false;
    await probe;
  }
  expect([...statuses.keys()], JSON.stringify([...statuses])).toEqual([200]);
  expect(steps(replacement()!)).toEqual(['ready', 'listening']);
  expect((await requestServer(endpoint, 'POST', pipelines, { body: pipeline('after') })).status).toBe(201);
  await eventually('the surviving watches see the next create', 30_000, async () => survivors.every(({ state }) => state.names.includes('after')));

  // SIGTERM to the primary: every worker shuts down gracefully, and the primary exits 0 once they have.
  command.child.kill('SIGTERM');
  const code = await command.exited;
  expect(code).toBe(0);
  for (const pid of readyPids(command)) expect(alive(pid), `worker ${pid}`).toBe(false);
});

it('runs one process on embedded PGlite whatever --workers says, and says so', { timeout: 120_000 }, async () => {
  const command = await start(['--workers', '3', '--no-controller']);
  // Listening is enough: a primary would have forked before anything listened.
  const listening = () => command.lines.filter((line) => line.msg === 'listening').map((line) => line.pid);
  await eventually('listening', 90_000, async () => listening().length > 0, 100);
  expect(listening()).toEqual([command.child.pid]);
  const warning = command.lines.find((line) => line.msg?.startsWith('embedded PGlite is served by one process'));
  expect(warning?.level).toBe(40);
  expect(command.lines.some((line) => line.msg === 'starting workers')).toBe(false);
  command.child.kill('SIGTERM');
  const code = await command.exited;
  expect(code).toBe(0);
});
