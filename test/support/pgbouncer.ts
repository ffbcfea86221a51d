/**
 * A throwaway PgBouncer (Debian's package, installed when missing) in front of a test
 * PostgreSQL, in transaction mode as production runs it: what Cairn does through it
 * must not rely on a session outliving its transaction.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureDebianPackage } from './debian-packages.js';
import { freeLoopbackPort } from './free-port.js';

/** A running PgBouncer. */
export interface PgBouncer {
  readonly port: number;
  /** The URL of `database` through PgBouncer, as user `postgres` with the auth file's password. */
  url(database: string): string;
  /** Stops it (SIGINT: at once) and removes its directory. */
  stop(): Promise<void>;
}

/** Options of {@link startPgBouncer}. */
export interface PgBouncerOptions {
  /** The PostgreSQL server behind it, on loopback. */
  readonly serverPort: number;
  readonly poolMode?: 'transaction' | 'session' | 'statement';
  /** Server connections per database and user. */
  readonly poolSize?: number;
}

const password = 'bouncer-secret';
const startMs = 15_000;

/**
 * Starts PgBouncer on a free loopback port in its own process group, with md5
 * authentication from an auth file and every database forwarded to the server.
 *
 * @example
 * const bouncer = await startPgBouncer({ serverPort: 5432 });
 * const url = bouncer.url('cairn'); // postgres://postgres:…@127.0.0.1:PORT/cairn
 */
export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  const program = await ensureDebianPackage('pgbouncer', 'pgbouncer');
  const directory = await mkdtemp(join(tmpdir(), 'cairn-pgbouncer-'));
  const port = await freeLoopbackPort();
  const config = join(directory, 'pgbouncer.ini');
  const log = join(directory, 'pgbouncer.log');
  await writeFile(join(directory, 'users.txt'), `"postgres" "${password}"\n`);
  await writeFile(
    config,
    [
      '[databases]',
      `* = host=127.0.0.1 port=${options.serverPort}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = md5',
      `auth_file = ${join(directory, 'users.txt')}`,
      `pool_mode = ${options.poolMode ?? 'transaction'}`,
      `default_pool_size = ${options.poolSize ?? 20}`,
      'max_client_conn = 1000',
      `logfile = ${log}`,
      // Startup parameters drivers send that PgBouncer would otherwise refuse.
      'ignore_startup_parameters = extra_float_digits,options',
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: it switches to the postgres user, who must read its files.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { uid, gid } = await postgresUser();
    for (const path of [directory, config, join(directory, 'users.txt')]) await chown(path, uid, gid);
  }
  const child = spawn(program, [...(asRoot ? ['-u', 'postgres'] : []), config], { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // A test process that dies without stopping it must not leave PgBouncer behind.
  const onExit = (): void => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
  };
  process.once('exit', onExit);
  const stop = async (): Promise<void> => {
    process.off('exit', onExit);
    await stopGroup(child);
    await rm(directory, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, child, async () => `${stderr}${await readFile(log, 'utf8').catch(() => '')}`);
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, url: (database) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`, stop };
}

/** The uid and gid of the postgres user, which the test clusters run as too. */
async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const passwd = await readFile('/etc/passwd', 'utf8');
  const line = passwd.split('\n').find((entry) => entry.startsWith('postgres:'));
  if (!line) throw new Error(`no postgres user to run PgBouncer as (this is ${userInfo().username})`);
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Resolves once something accepts connections on `port`; rejects with PgBouncer's output if it exits first. */
async function waitForPort(port: number, child: ChildProcess, output: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + startMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`pgbouncer exited (${child.exitCode ?? child.signalCode}):\n${await output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`pgbouncer did not listen on 127.0.0.1:${port} within ${startMs} ms:\n${await output()}`);
    await sleep(50);
  }
}

/** Ends PgBouncer's process group (SIGINT: immediate shutdown) and waits for it to exit. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(-child.pid, 'SIGINT');
  } catch {
    return;
  }
  await Promise.race([exited, sleep(5000).then(() => process.kill(-child.pid!, 'SIGKILL'))]);
}
