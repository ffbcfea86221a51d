/**
 * The server backend: PostgreSQL through a pool on the server the connection string
 * chooses (libpq's rules: several hosts, target_session_attrs, sslmode), with a
 * dedicated session for LISTEN that reconnects by itself, or, through a transaction
 * pooler without a direct connection string, a poll of the event log instead.
 */
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { describeServer, parseConnectionString, type ConnectionSettings } from './connection-string.js';
import type { ConnectionCounts, Database, DatabaseWork, Row, TransactionWork } from './database.js';
import { FailoverPool } from './failover-pool.js';
import type { StorageSchema } from './schema.js';
import { checkWritable, connectWritableSession } from './server-sessions.js';
import { decodeJsonb, jsonbOid } from './stored-text.js';

/** Options for the PostgreSQL backend. */
export interface PostgresDatabaseOptions {
  /** A libpq connection string (URI or keyword/value); PG* variables fill what it leaves out. */
  readonly connectionString: string;
  /**
   * `transaction`: the connection string reaches PostgreSQL through a transaction-mode
   * pooler (PgBouncer's pool_mode=transaction), where a session lasts one transaction:
   * no named prepared statements, and LISTEN only on `listenConnectionString`.
   */
  readonly pooler?: 'transaction';
  /** A direct connection string for what needs a session of its own (LISTEN); default: `connectionString` unless `pooler` is set. */
  readonly listenConnectionString?: string;
  /** Through a pooler without `listenConnectionString`, how often the event log is polled instead of woken by NOTIFY; default 1000 ms. */
  readonly pollIntervalMs?: number;
  /** Pool size; default 10. */
  readonly maxConnections?: number;
  /** Called with errors that happen outside a request (the LISTEN connection). */
  readonly onBackgroundError?: (error: unknown) => void;
}

const listenRetryMs = 1000;
const defaultPollIntervalMs = 1000;

/** How a PostgreSQL database learns of other replicas' writes, for the start banner. */
export type WakeupSource = { readonly listen: string } | { readonly pollIntervalMs: number };

/** A Database on a PostgreSQL server. */
export class PostgresDatabase implements Database {
  readonly backend = 'postgres' as const;
  readonly #pool: FailoverPool;
  readonly #db: Kysely<StorageSchema>;
  readonly #options: PostgresDatabaseOptions;
  readonly #settings: ConnectionSettings;
  /** Where LISTEN goes; undefined: the event log is polled. */
  readonly #listenSettings: ConnectionSettings | undefined;

  /** Reads the connection strings (throwing a ConnectionStringError on one libpq would refuse); connects on first use. */
  constructor(options: PostgresDatabaseOptions) {
    this.#options = options;
    this.#settings = parseConnectionString(options.connectionString);
    const listenString = options.listenConnectionString ?? (options.pooler ? undefined : options.connectionString);
    this.#listenSettings = listenString === undefined ? undefined : parseConnectionString(listenString);
    this.#pool = new FailoverPool({
      settings: this.#settings,
      max: options.maxConnections ?? 10,
      idleTimeoutMillis: 30_000,
      client: {
        connectionTimeoutMillis: 5000,
        types: {
          getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
            oid === jsonbOid ? decodeJsonb : (pg.types.getTypeParser(oid, format) as (value: string) => unknown)) as typeof pg.types.getTypeParser,
        },
      },
      // An idle session losing its server must not crash the process; the next query reconnects.
      onBackgroundError: (error) => options.onBackgroundError?.(error),
    });
    this.#db = new Kysely<StorageSchema>({ dialect: new PostgresDialect({ pool: this.#pool }) });
  }

  /** How other replicas' writes wake this one: LISTEN on a server of the list, or a poll. */
  get wakeups(): WakeupSource {
    return this.#listenSettings
      ? { listen: this.#listenSettings.servers.map(describeServer).join(',') }
      : { pollIntervalMs: this.#options.pollIntervalMs ?? defaultPollIntervalMs };
  }

  run<T>(work: DatabaseWork<T>): Promise<T> {
    return work(this.#db);
  }

  transaction<T>(work: TransactionWork<T>, options?: { snapshot?: boolean }): Promise<T> {
    const builder = this.#db.transaction();
    return (options?.snapshot ? builder.setIsolationLevel('repeatable read').setAccessMode('read only') : builder).execute(work);
  }

  async query(text: string, values: readonly unknown[], name?: string): Promise<readonly Row[]> {
    // A transaction pooler hands each statement to any server session: a statement prepared by name on one is unknown on the next.
    const prepared = name !== undefined && !this.#options.pooler;
    const result = await this.#pool.query<Row>({ text, values: values as unknown[], ...(prepared ? { name } : {}) });
    return result.rows;
  }

  async script(statements: string): Promise<readonly (readonly Row[])[]> {
    // The simple query protocol: several statements in one message run as one implicit transaction.
    const result = (await this.#pool.query<Row>(statements)) as pg.QueryResult<Row> | pg.QueryResult<Row>[];
    return Array.isArray(result) ? result.map((r) => r.rows) : [result.rows];
  }

  async listen(channel: string, onWake: (payload: string) => void): Promise<() => Promise<void>> {
    const listenSettings = this.#listenSettings;
    if (!listenSettings) return this.#poll(onWake);
    let client: pg.Client | undefined;
    let stopped = false;
    let retry: NodeJS.Timeout | undefined;
    const connect = async (): Promise<void> => {
      let next: pg.Client;
      try {
        // The first server of the list that can write: a standby refuses LISTEN, and a primary's NOTIFY reaches only its own listeners.
        ({ client: next } = await connectWritableSession(listenSettings, { connectionTimeoutMillis: 5000 }));
      } catch (error) {
        this.#options.onBackgroundError?.(error);
        scheduleConnect();
        return;
      }
      next.on('notification', (message) => onWake(message.payload ?? ''));
      next.on('error', (error) => {
        this.#options.onBackgroundError?.(error);
        reconnect(next);
      });
      next.on('end', () => reconnect(next));
      try {
        await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      } catch (error) {
        this.#options.onBackgroundError?.(error);
        reconnect(next);
        return;
      }
      if (stopped) {
        await next.end().catch(() => undefined);
        return;
      }
      client = next;
      // Whatever was written while we were not listening must be read now.
      onWake('');
    };
    const reconnect = (failed: pg.Client): void => {
      if (stopped || retry || (client && client !== failed)) return;
      client = undefined;
      failed.removeAllListeners('end');
      void failed.end().catch(() => undefined);
      scheduleConnect();
    };
    const scheduleConnect = (): void => {
      if (stopped || retry) return;
      retry = setTimeout(() => {
        retry = undefined;
        void connect();
      }, listenRetryMs);
    };
    await connect();
    return async () => {
      stopped = true;
      if (retry) clearTimeout(retry);
      const current = client;
      client = undefined;
      current?.removeAllListeners('end');
      await current?.end().catch(() => undefined);
    };
  }

  /** Wakes `onWake` now and every poll interval: through a transaction pooler no session stays to LISTEN on. */
  #poll(onWake: (payload: string) => void): Promise<() => Promise<void>> {
    const timer = setInterval(() => onWake(''), this.#options.pollIntervalMs ?? defaultPollIntervalMs);
    timer.unref();
    onWake('');
    return Promise.resolve(async () => clearInterval(timer));
  }

  async notify(channel: string, payload = ''): Promise<void> {
    await this.#pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  /** Fails unless a session of the pool answers and can write (a demoted or standby server fails it, naming itself). */
  async ping(): Promise<void> {
    const client = await this.#pool.connect();
    const server = this.#pool.server;
    try {
      if (server) await checkWritable(client, server, this.#settings);
      else await client.query('SELECT 1');
      client.release();
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
  }

  connections(): ConnectionCounts {
    const { total, idle, waiting } = this.#pool.counts();
    return { inUse: total - idle, idle, waiting };
  }

  async close(): Promise<void> {
    await this.#db.destroy();
    // Kysely ends the pool only if it ever ran a query; query() and ping() use the pool directly.
    await this.#pool.end();
  }
}
