import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freeLoopbackPort } from './free-port.js';

/** Options for {@link startPostgresCluster}. */
export interface PostgresClusterOptions {
  /** The loopback port to listen on; a free one is picked when omitted. */
  readonly port?: number;
  /** Lines appended to postgresql.conf (`ssl = on`, …). */
  readonly settings?: readonly string[];
  /** The lines of pg_hba.conf, in place of initdb's (trust for every local and loopback connection). */
  readonly hba?: readonly string[];
  /** Files written into the data directory before the first start, readable by the server alone (TLS keys and certificates). */
  readonly files?: Readonly<Record<string, string>>;
  /** Makes the cluster a streaming standby of this one (`pg_basebackup -R`) instead of a new one from initdb. */
  readonly standbyOf?: PostgresCluster;
}

/**
 * A throwaway PostgreSQL 15 cluster in a temporary directory, listening on
 * 127.0.0.1 with trust authentication for the `postgres` superuser.
 *
 * @example
 * const cluster = await startPostgresCluster();
 * try {
 *   const url = await cluster.createDatabase();
 *   // … connect to `url` …
 * } finally {
 *   await cluster.destroy();
 * }
 */
export interface PostgresCluster {
  /** Connection URL of the `postgres` database: `postgres://postgres@127.0.0.1:PORT/postgres`. */
  readonly url: string;
  /** The TCP port on 127.0.0.1 the server listens on; it stays the same across restarts. */
  readonly port: number;
  /** The temporary directory holding the data directory, the log and the Unix socket. */
  readonly directory: string;
  /** The cluster's data directory (`PGDATA`), inside {@link directory}. */
  readonly dataDirectory: string;
  /**
   * Stops the server with a fast shutdown (open sessions are terminated) and keeps the
   * data directory, to simulate a database outage. Does nothing when already stopped.
   */
  stop(): Promise<void>;
  /** Starts the server again on the same port and data. Does nothing when already running. */
  start(): Promise<void>;
  /** Promotes a standby to a primary (`pg_ctl promote`), waiting until it accepts writes. */
  promote(): Promise<void>;
  /** Stops the server if it runs and removes the temporary directory. Idempotent. */
  destroy(): Promise<void>;
  /** Creates a database (with a unique name unless `name` is given) and returns its URL. */
  createDatabase(name?: string): Promise<string>;
}

/**
 * Thrown when a cluster cannot be created, started or stopped; carries the tail of the
 * postgres log, which is also part of the message.
 */
export class PostgresClusterError extends Error {
  override readonly name = 'PostgresClusterError';

  /**
   * @param message what failed, including the command output
   * @param directory the cluster's temporary directory (removed when startup failed)
   * @param logTail the last lines of the postgres server log, or '' when there is none
   */
  constructor(
    message: string,
    readonly directory: string,
    readonly logTail: string,
  ) {
    super(logTail === '' ? message : `${message}\n--- postgres log (tail) ---\n${logTail}`);
  }
}

const PG_CTL_TIMEOUT_SECONDS = 60;
const COMMAND_TIMEOUT_MS = 120_000;
const LOG_TAIL_LINES = 40;
const START_ATTEMPTS = 3;
const SERVER_USER = 'postgres';

/**
 * Creates a temporary directory, runs `initdb` in it and starts `postgres` on a loopback
 * port. If anything fails, the server is stopped and the directory removed before the
 * returned promise rejects with a {@link PostgresClusterError}.
 */
export async function startPostgresCluster(options: PostgresClusterOptions = {}): Promise<PostgresCluster> {
  const directory = await mkdtemp(join(tmpdir(), 'cairn-pg-'));
  const cluster = new LocalPostgresCluster(directory);
  try {
    await cluster.initialize(options);
    return cluster;
  } catch (error) {
    await cluster.destroy().catch(() => undefined);
    throw error;
  }
}

/**
 * Creates a database on the server at `serverUrl` (any superuser URL, e.g. a cluster's
 * {@link PostgresCluster.url}) and returns the URL of the new database.
 *
 * @param serverUrl URL of an existing database on the server to connect through
 * @param name the database name; a unique `cairn_test_…` name when omitted
 */
export async function createDatabase(serverUrl: string, name: string = uniqueDatabaseName()): Promise<string> {
  if (Buffer.byteLength(name) > 63) {
    throw new Error(`database name "${name}" is longer than PostgreSQL's 63-byte limit`);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      await runSql(serverUrl, `CREATE DATABASE ${quoteIdentifier(name)}`);
      break;
    } catch (error) {
      // 55006: another session is using template1; concurrent test files can hit this briefly.
      if (attempt >= 10 || (error as { code?: unknown }).code !== '55006') throw error;
      await sleep(100 * attempt);
    }
  }
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

/** The default implementation of {@link PostgresCluster}, driving `initdb` and `pg_ctl`. */
class LocalPostgresCluster implements PostgresCluster {
  readonly directory: string;
  readonly dataDirectory: string;
  readonly #logFile: string;
  #port = 0;
  #running = false;
  #destroyed = false;
  /** Serializes start/stop/destroy so concurrent calls cannot interleave pg_ctl runs. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(directory: string) {
    this.directory = directory;
    this.dataDirectory = join(directory, 'data');
    this.#logFile = join(directory, 'postgres.log');
  }

  get port(): number {
    return this.#port;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.#port}/postgres`;
  }

  /** Runs initdb (or copies the primary of a standby), writes the server settings and starts the server for the first time. */
  async initialize(options: PostgresClusterOptions): Promise<void> {
    const { port, standbyOf } = options;
    if (isRoot()) await run('chown', [`${SERVER_USER}:`, this.directory], this.directory, false);
    const init = standbyOf
      ? await run(
          'pg_basebackup',
          ['-h', '127.0.0.1', '-p', String(standbyOf.port), '-U', 'postgres', '-D', this.dataDirectory, '-R', '-X', 'stream', '--checkpoint=fast', '--no-sync'],
          this.directory,
          isRoot(),
        )
      : await run(
          'initdb',
          ['-D', this.dataDirectory, '--auth=trust', '-U', 'postgres', '--encoding=UTF8', '--locale=C', '--no-sync'],
          this.directory,
          isRoot(),
        );
    if (init.code !== 0) throw this.#failure(standbyOf ? 'pg_basebackup failed' : 'initdb failed', init, '');
    for (const [name, text] of Object.entries(options.files ?? {})) await this.#writeServerFile(name, text);
    if (options.hba) await this.#writeServerFile('pg_hba.conf', [...options.hba, ''].join('\n'));
    await appendFile(
      join(this.dataDirectory, 'postgresql.conf'),
      [
        '',
        '# Cairn test cluster',
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${this.directory.replaceAll("'", "''")}'`,
        'fsync = on',
        'max_connections = 200',
        ...(options.settings ?? []),
        '',
      ].join('\n'),
    );
    for (let attempt = 1; ; attempt++) {
      this.#port = port ?? (await freeLoopbackPort());
      try {
        await this.#startServer();
        return;
      } catch (error) {
        // Another process may take a probed port before postgres binds it: probe again.
        const portTaken = error instanceof PostgresClusterError && /could not bind|in use/i.test(error.logTail);
        if (port !== undefined || !portTaken || attempt >= START_ATTEMPTS) throw error;
      }
    }
  }

  start(): Promise<void> {
    return this.#serialize(async () => {
      if (this.#destroyed) throw new Error(`cluster in ${this.directory} was destroyed`);
      if (!this.#running) await this.#startServer();
    });
  }

  promote(): Promise<void> {
    return this.#serialize(async () => {
      const result = await run('pg_ctl', ['-D', this.dataDirectory, '-w', '-t', String(PG_CTL_TIMEOUT_SECONDS), 'promote'], this.directory, isRoot());
      if (result.code !== 0) throw this.#failure('pg_ctl promote failed', result, await this.#logTail());
    });
  }

  stop(): Promise<void> {
    return this.#serialize(async () => {
      if (this.#running) await this.#stopServer('fast');
    });
  }

  destroy(): Promise<void> {
    return this.#serialize(async () => {
      if (this.#destroyed) return;
      this.#destroyed = true;
      try {
        if (this.#running || (await this.#hasPidFile())) {
          await this.#stopServer('fast').catch(() => this.#stopServer('immediate'));
        }
      } finally {
        liveClusters.delete(this);
        await rm(this.directory, { recursive: true, force: true });
      }
    });
  }

  createDatabase(name?: string): Promise<string> {
    return createDatabase(this.url, name);
  }

  /** Best-effort synchronous cleanup for process exit, when destroy() was never awaited. */
  destroySync(): void {
    spawnSync(...command('pg_ctl', ['-D', this.dataDirectory, '-m', 'immediate', '-w', 'stop']), {
      cwd: this.directory,
      stdio: 'ignore',
      timeout: 10_000,
    });
    rmSync(this.directory, { recursive: true, force: true });
  }

  async #startServer(): Promise<void> {
    liveClusters.add(this);
    registerExitHook();
    const result = await run(
      'pg_ctl',
      ['-D', this.dataDirectory, '-l', this.#logFile, '-o', `-p ${this.#port}`, '-w', '-t', String(PG_CTL_TIMEOUT_SECONDS), 'start'],
      this.directory,
      isRoot(),
    );
    if (result.code !== 0) {
      // pg_ctl may give up waiting while the postmaster still runs: never leave it behind.
      if (await this.#hasPidFile()) await this.#stopServer('immediate').catch(() => undefined);
      throw this.#failure(`postgres failed to start on 127.0.0.1:${this.#port}`, result, await this.#logTail());
    }
    this.#running = true;
  }

  async #stopServer(mode: 'fast' | 'immediate'): Promise<void> {
    const result = await run('pg_ctl', ['-D', this.dataDirectory, '-m', mode, '-w', '-t', String(PG_CTL_TIMEOUT_SECONDS), 'stop'], this.directory, isRoot());
    if (result.code !== 0) throw this.#failure(`postgres failed to stop (${mode})`, result, await this.#logTail());
    this.#running = false;
  }

  /** A file of the data directory only the server's user may read, as postgres requires of its key. */
  async #writeServerFile(name: string, text: string): Promise<void> {
    const path = join(this.dataDirectory, name);
    await writeFile(path, text, { mode: 0o600 });
    if (isRoot()) await run('chown', [`${SERVER_USER}:`, path], this.directory, false);
  }

  async #hasPidFile(): Promise<boolean> {
    return readFile(join(this.dataDirectory, 'postmaster.pid')).then(
      () => true,
      () => false,
    );
  }

  async #logTail(): Promise<string> {
    const log = await readFile(this.#logFile, 'utf8').catch(() => '');
    return log.trimEnd().split('\n').slice(-LOG_TAIL_LINES).join('\n');
  }

  #failure(what: string, result: CommandResult, logTail: string): PostgresClusterError {
    const status = result.signal === null ? `exit code ${result.code}` : `signal ${result.signal}`;
    const output = result.output.trim() === '' ? '' : `\n${result.output.trim()}`;
    return new PostgresClusterError(`${what} (${status}; directory ${this.directory})${output}`, this.directory, logTail);
  }

  #serialize(operation: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(operation, operation);
    this.#queue = next.catch(() => undefined);
    return next;
  }
}

/** Clusters whose server may be running, stopped on process exit if their owner forgot. */
const liveClusters = new Set<LocalPostgresCluster>();
let exitHookRegistered = false;

/** Makes sure a crashed or careless test process does not leave postgres running. */
function registerExitHook(): void {
  if (exitHookRegistered) return;
  exitHookRegistered = true;
  process.once('exit', () => {
    for (const cluster of liveClusters) cluster.destroySync();
  });
}

/** What a finished command printed, interleaved, and how it ended. */
interface CommandResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly output: string;
}

/** postgres refuses to run as root, so as root every server tool runs as the postgres user. */
function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** The program and arguments to spawn, wrapped in `runuser` when running as root. */
function command(program: string, args: readonly string[]): [string, string[]] {
  return isRoot() ? ['runuser', ['-u', SERVER_USER, '--', program, ...args]] : [program, [...args]];
}

/** Runs a program without stdin and collects its output; rejects only if it cannot be spawned. */
function run(program: string, args: readonly string[], cwd: string, asServerUser: boolean): Promise<CommandResult> {
  const [file, argv] = asServerUser ? command(program, args) : [program, [...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: COMMAND_TIMEOUT_MS });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', (error) => reject(new Error(`cannot run ${[file, ...argv].join(' ')}: ${error.message}`)));
    child.once('close', (code, signal) => resolve({ code, signal, output }));
  });
}

/** Runs one statement on a short-lived connection (CREATE DATABASE cannot run in a pool transaction). */
async function runSql(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  // A server going away mid-statement also rejects the query; this keeps it from crashing the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Unique across parallel test files and processes, and a valid unquoted identifier. */
function uniqueDatabaseName(): string {
  return `cairn_test_${Date.now().toString(36)}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** Double-quotes an SQL identifier. */
function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
