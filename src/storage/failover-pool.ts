/**
 * A pg pool on whichever server of the connection string gives writable sessions now:
 * a pg.Pool per server tried, the current one kept while its sessions work. When one
 * ends the way a failover ends it (shutdown, a read-only error, a refused connection),
 * the pool is retired and the next connection tries the servers in order again, so
 * Cairn finds a promoted standby without a restart and never keeps writing into a
 * demoted primary.
 */
import pg from 'pg';
import type { ConnectionSettings } from './connection-string.js';
import { checkWritable, endsSession, noWritableServer, reason, serverCandidates, type ServerCandidate } from './server-sessions.js';

/** How the pools are made, beside the connection string. */
export interface FailoverPoolOptions {
  readonly settings: ConnectionSettings;
  /** pg options every session shares (types, keepalive). */
  readonly client: pg.ClientConfig;
  /** Connections per server's pool. */
  readonly max: number;
  readonly idleTimeoutMillis: number;
  /** Errors of idle sessions (a server going away); the pool goes on. */
  readonly onBackgroundError: (error: unknown) => void;
}

/** A pool of one server's sessions, and the try it was made for. */
interface ServerPool {
  readonly candidate: ServerCandidate;
  readonly pool: pg.Pool;
}

/**
 * A session client that remembers an error that ended its session, so that releasing
 * it discards it: Kysely releases a client without saying so (pg-pool's `release`,
 * which it sets on every checkout, is wrapped by this accessor).
 */
class SessionClient extends pg.Client {
  #ended: Error | undefined;
  #release: ((error?: Error | boolean) => void) | undefined;
  readonly #onSessionEnded: (error: Error) => void;

  constructor(config: pg.ClientConfig & { onSessionEnded: (error: Error) => void }) {
    super(config);
    this.#onSessionEnded = config.onSessionEnded;
  }

  get release(): (error?: Error | boolean) => void {
    return (error) => this.#release?.(error || this.#ended);
  }

  set release(release: (error?: Error | boolean) => void) {
    this.#release = release;
  }

  // @ts-expect-error: one signature for pg's overloads; the promise form is the one Kysely uses.
  override query(...args: Parameters<pg.Client['query']>): ReturnType<pg.Client['query']> {
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (result instanceof Promise)
      result.catch((error: unknown) => {
        if (!endsSession(error)) return;
        this.#ended = error as Error;
        this.#onSessionEnded(error as Error);
      });
    return result as ReturnType<pg.Client['query']>;
  }
}

/** The pool Kysely and the database's own queries take sessions from. */
export class FailoverPool {
  readonly #options: FailoverPoolOptions;
  readonly #candidates: readonly ServerCandidate[];
  #current: ServerPool | undefined;
  #choosing: Promise<ServerPool> | undefined;
  #ended = false;

  constructor(options: FailoverPoolOptions) {
    this.#options = options;
    this.#candidates = serverCandidates(options.settings, options.client);
  }

  /** The server sessions go to now, `host:port`; undefined before the first or after losing it. */
  get server(): ServerCandidate['server'] | undefined {
    return this.#current?.candidate.server;
  }

  /** For Kysely's cancellation, which opens a control connection like the pool's. */
  get Client(): typeof pg.Client {
    return pg.Client;
  }

  get options(): pg.PoolConfig {
    return this.#current?.pool.options ?? {};
  }

  /** A session on the current server, or on the first of the list that gives a writable one. */
  async connect(): Promise<pg.PoolClient> {
    const current = this.#current ?? (await this.#choose());
    try {
      return await current.pool.connect();
    } catch (error) {
      if (!endsSession(error) || this.#ended) throw error;
      this.#retire(current);
      return (await this.#choose()).pool.connect();
    }
  }

  /** One statement on a session of the pool; a session-ending error discards the session. */
  async query<R extends pg.QueryResultRow>(config: pg.QueryConfig | string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const client = await this.connect();
    try {
      const result = await client.query<R>(config as pg.QueryConfig, values);
      client.release();
      return result;
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
  }

  /** Sessions open, idle and waited for, on the current server. */
  counts(): { total: number; idle: number; waiting: number } {
    const pool = this.#current?.pool;
    return { total: pool?.totalCount ?? 0, idle: pool?.idleCount ?? 0, waiting: pool?.waitingCount ?? 0 };
  }

  async end(): Promise<void> {
    this.#ended = true;
    const current = this.#current;
    this.#current = undefined;
    await current?.pool.end();
  }

  /** One search at a time: connections waiting for a server share it. */
  #choose(): Promise<ServerPool> {
    if (this.#ended) return Promise.reject(new Error('the database pool is closed'));
    this.#choosing ??= this.#tryServers().finally(() => (this.#choosing = undefined));
    return this.#choosing;
  }

  async #tryServers(): Promise<ServerPool> {
    const reasons: string[] = [];
    for (const candidate of this.#candidates) {
      const serverPool = this.#newPool(candidate);
      try {
        (await serverPool.pool.connect()).release();
        this.#current = serverPool;
        return serverPool;
      } catch (error) {
        reasons.push(reason(candidate, error));
        await serverPool.pool.end().catch(() => undefined);
      }
    }
    throw noWritableServer(this.#options.settings, reasons);
  }

  #newPool(candidate: ServerCandidate): ServerPool {
    const serverPool: ServerPool = {
      candidate,
      pool: new pg.Pool({
        ...candidate.config,
        Client: SessionClient as unknown as new () => pg.ClientBase,
        onSessionEnded: () => this.#retire(serverPool),
        max: this.#options.max,
        idleTimeoutMillis: this.#options.idleTimeoutMillis,
        // Every new session is asked whether it can write, as libpq's target_session_attrs=read-write asks.
        verify: (client: pg.PoolClient, done: (error?: Error) => void) => {
          checkWritable(client, candidate.server, this.#options.settings).then(() => done(), done);
        },
      } as pg.PoolConfig),
    };
    // An idle session losing its server must not crash the process; it also means the server may be gone.
    const lost = (error: Error): void => {
      this.#options.onBackgroundError(error);
      if (endsSession(error)) this.#retire(serverPool);
    };
    serverPool.pool.on('error', lost);
    // A checked-out session whose server goes away between queries emits 'error' itself.
    serverPool.pool.on('connect', (client) => client.on('error', lost));
    return serverPool;
  }

  /** Stops handing out sessions of `serverPool`: the next connection looks for a server again. */
  #retire(serverPool: ServerPool): void {
    if (this.#current !== serverPool) return;
    this.#current = undefined;
    // Sessions still checked out end as they are released.
    void serverPool.pool.end().catch(() => undefined);
  }
}
