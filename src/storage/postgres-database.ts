/**
 * The server backend: PostgreSQL through a pg pool, with a dedicated client for
 * LISTEN that reconnects by itself.
 */
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { ConnectionCounts, Database, DatabaseWork, Row, TransactionWork } from './database.js';
import type { StorageSchema } from './schema.js';
import { decodeJsonb, jsonbOid } from './stored-text.js';

/** Options for the PostgreSQL backend. */
export interface PostgresDatabaseOptions {
  readonly connectionString: string;
  /** Pool size; default 10. */
  readonly maxConnections?: number;
  /** Called with errors that happen outside a request (the LISTEN connection). */
  readonly onBackgroundError?: (error: unknown) => void;
}

const listenRetryMs = 1000;

/** A Database on a PostgreSQL server. */
export class PostgresDatabase implements Database {
  readonly backend = 'postgres' as const;
  readonly #pool: pg.Pool;
  readonly #db: Kysely<StorageSchema>;
  readonly #options: PostgresDatabaseOptions;

  constructor(options: PostgresDatabaseOptions) {
    this.#options = options;
    this.#pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: 30_000,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === jsonbOid ? decodeJsonb : (pg.types.getTypeParser(oid, format) as (value: string) => unknown)) as typeof pg.types.getTypeParser,
      },
    });
    // An idle client losing its server must not crash the process; the next query reconnects.
    this.#pool.on('error', (error) => options.onBackgroundError?.(error));
    // A checked-out client whose server goes away between queries emits 'error' itself.
    this.#pool.on('connect', (client) => client.on('error', (error) => options.onBackgroundError?.(error)));
    this.#db = new Kysely<StorageSchema>({ dialect: new PostgresDialect({ pool: this.#pool }) });
  }

  run<T>(work: DatabaseWork<T>): Promise<T> {
    return work(this.#db);
  }

  transaction<T>(work: TransactionWork<T>, options?: { snapshot?: boolean }): Promise<T> {
    const builder = this.#db.transaction();
    return (options?.snapshot ? builder.setIsolationLevel('repeatable read').setAccessMode('read only') : builder).execute(work);
  }

  async query(text: string, values: readonly unknown[], name?: string): Promise<readonly Row[]> {
    const result = await this.#pool.query<Row>({ text, values: values as unknown[], ...(name !== undefined ? { name } : {}) });
    return result.rows;
  }

  async script(statements: string): Promise<readonly (readonly Row[])[]> {
    // The simple query protocol: several statements in one message run as one implicit transaction.
    const result = (await this.#pool.query<Row>(statements)) as pg.QueryResult<Row> | pg.QueryResult<Row>[];
    return Array.isArray(result) ? result.map((r) => r.rows) : [result.rows];
  }

  async listen(channel: string, onWake: (payload: string) => void): Promise<() => Promise<void>> {
    let client: pg.Client | undefined;
    let stopped = false;
    let retry: NodeJS.Timeout | undefined;
    const connect = async (): Promise<void> => {
      const next = new pg.Client({ connectionString: this.#options.connectionString, connectionTimeoutMillis: 5000 });
      next.on('notification', (message) => onWake(message.payload ?? ''));
      next.on('error', (error) => {
        this.#options.onBackgroundError?.(error);
        reconnect(next);
      });
      next.on('end', () => reconnect(next));
      try {
        await next.connect();
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

  async notify(channel: string, payload = ''): Promise<void> {
    await this.#pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  async ping(): Promise<void> {
    await this.#pool.query('SELECT 1');
  }

  connections(): ConnectionCounts {
    const pool = this.#pool;
    return { inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount };
  }

  async close(): Promise<void> {
    await this.#db.destroy();
  }
}
