/**
 * HAProxy in front of a Patroni cluster, as production runs it: one address that
 * always leads to the primary, found by Patroni's REST health check (`OPTIONS /primary`
 * answers 200 only on the leader), and whose sessions are cut the moment a member stops
 * being primary, so that no client keeps writing to a demoted server.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from 'node:net';
import { ensureDebianPackage } from './debian-packages.js';
import { freeLoopbackPort } from './free-port.js';
import { startProcessGroup, type ProcessGroup } from './process-group.js';

/** Failed checks before a server is marked down. */
const fall = 2;

/** A backend HAProxy checks and forwards to. */
export interface HaproxyBackend {
  readonly name: string;
  /** Where connections go. */
  readonly port: number;
  /** Where the health check goes (Patroni's REST API, or the server itself). */
  readonly checkPort: number;
}

/** What is checked on each backend. */
export interface HaproxyCheck {
  /** `tcp` forwards bytes (PostgreSQL); `https` checks over TLS but forwards bytes too. */
  readonly mode: 'postgres' | 'https';
  /** e.g. `OPTIONS /primary` (Patroni) or `GET /readyz` (Cairn). */
  readonly request: string;
  /** How often each backend is checked, in ms. */
  readonly intervalMs: number;
  /**
   * Cut the sessions of a backend marked down (a demoted PostgreSQL must not keep writers);
   * not for a Cairn replica draining for shutdown, whose requests in flight must finish.
   */
  readonly cutSessionsWhenDown: boolean;
}

/** A running HAProxy. */
export interface Haproxy {
  /** The loopback port clients connect to. */
  readonly port: number;
  readonly group: ProcessGroup;
  stop(): Promise<void>;
}

/** Starts HAProxy on a free loopback port in front of `backends`. */
export async function startHaproxy(directory: string, backends: readonly HaproxyBackend[], check: HaproxyCheck): Promise<Haproxy> {
  const haproxy = await ensureDebianPackage('haproxy', 'haproxy');
  const port = await freeLoopbackPort();
  const checkOverTls = check.mode === 'https' ? ' check-ssl verify none' : '';
  const configFile = join(directory, `haproxy-${port}.cfg`);
  await writeFile(
    configFile,
    [
      'global',
      '  maxconn 1000',
      'defaults',
      '  mode tcp',
      // A connection refused by a member that just died is retried once, a second later, then
      // fails (the client retries on the 503 it gets): three default retries held each for 3 s.
      '  timeout connect 1s',
      '  retries 1',
      '  option redispatch',
      // Watches and the LISTEN connection stay open and quiet for long.
      '  timeout client 1h',
      '  timeout server 1h',
      '  timeout check 1s',
      'listen cairn',
      `  bind 127.0.0.1:${port}`,
      `  option httpchk ${check.request}`,
      '  http-check expect status 200',
      // Marked down after two failed checks, up after one.
      `  default-server inter ${check.intervalMs}ms fall ${fall} rise 1${check.cutSessionsWhenDown ? ' on-marked-down shutdown-sessions' : ''}`,
      ...backends.map((b) => `  server ${b.name} 127.0.0.1:${b.port} check port ${b.checkPort}${checkOverTls}`),
      '',
    ].join('\n'),
  );
  const group = startProcessGroup(haproxy, ['-db', '-f', configFile], { logFile: join(directory, `haproxy-${port}.log`), cwd: directory });
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (group.exited || Date.now() > deadline) {
      await group.kill();
      throw new Error(`haproxy did not listen on 127.0.0.1:${port}\n${group.logTail()}`);
    }
    await sleep(50);
  }
  // HAProxy 2.6 starts every server up until its checks say otherwise: wait out the checks that mark the others down.
  await sleep(check.intervalMs * (fall + 1));
  return { port, group, stop: () => group.kill() };
}

/** Whether something accepts connections on the loopback port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
