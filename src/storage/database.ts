/**
 * The database Cairn stores objects in: embedded PGlite or a PostgreSQL server,
 * behind one interface so the object store and its conformance tests do not care.
 */
import type { Kysely, Transaction } from 'kysely';
import type { StorageSchema } from './schema.js';

/** A function run against the database or inside one transaction. */
export type DatabaseWork<T> = (db: Kysely<StorageSchema>) => Promise<T>;
/** A function run inside one transaction. */
export type TransactionWork<T> = (trx: Transaction<StorageSchema>) => Promise<T>;

/** One row as the driver hands it out (jsonb parsed, the other types as the driver parses them). */
export type Row = Readonly<Record<string, unknown>>;

/** A database's connections and the work waiting for one (`cairn_database_pool_connections`). */
export interface ConnectionCounts {
  /** Connections running work. */
  readonly inUse: number;
  /** Connections open and free. */
  readonly idle: number;
  /** Work waiting for a connection. */
  readonly waiting: number;
}

/** The database behind the object store. */
export interface Database {
  /** `pglite` (in-process, one connection) or `postgres` (a server, a pool). */
  readonly backend: 'pglite' | 'postgres';
  /** Runs queries outside a transaction. */
  run<T>(work: DatabaseWork<T>): Promise<T>;
  /** Runs `work` in one transaction; `snapshot` asks for a read-only repeatable-read one. */
  transaction<T>(work: TransactionWork<T>, options?: { snapshot?: boolean }): Promise<T>;
  /**
   * Runs one statement with positional parameters (`$1`, …) outside a transaction, with
   * no query builder in between: for the hot paths. `name` lets the backend prepare the
   * statement once per connection; one name always goes with one text.
   *
   * @example
   * const rows = await database.query('SELECT object FROM cairn_objects WHERE resource = $1', ['pipelines.cairn.dev'], 'objects-of');
   */
  query(text: string, values: readonly unknown[], name?: string): Promise<readonly Row[]>;
  /**
   * Runs `statements` (separated by `;`, no parameters: values travel as quoted literals)
   * in one round trip and one transaction: all of them commit or none. Returns each
   * statement's rows, in order.
   */
  script(statements: string): Promise<readonly (readonly Row[])[]>;
  /**
   * Calls `onWake` with the payload whenever a process may have written (LISTEN).
   * Returns a function that stops listening. A backend with one process never wakes.
   */
  listen(channel: string, onWake: (payload: string) => void): Promise<() => Promise<void>>;
  /** Wakes the processes listening on `channel` (NOTIFY), with `payload` (default empty). */
  notify(channel: string, payload?: string): Promise<void>;
  /** Fails when the database cannot answer. */
  ping(): Promise<void>;
  /** Its connections now (PGlite's one, and the work queued for it; a pool's). */
  connections(): ConnectionCounts;
  /** Closes every connection. */
  close(): Promise<void>;
}
