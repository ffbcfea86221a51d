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

/** The database behind the object store. */
export interface Database {
  /** `pglite` (in-process, one connection) or `postgres` (a server, a pool). */
  readonly backend: 'pglite' | 'postgres';
  /** Runs queries outside a transaction. */
  run<T>(work: DatabaseWork<T>): Promise<T>;
  /** Runs `work` in one transaction; `snapshot` asks for a read-only repeatable-read one. */
  transaction<T>(work: TransactionWork<T>, options?: { snapshot?: boolean }): Promise<T>;
  /**
   * Calls `onWake` whenever another process may have written (LISTEN). Returns a
   * function that stops listening. A backend with one process never wakes.
   */
  listen(channel: string, onWake: () => void): Promise<() => Promise<void>>;
  /** Wakes the other processes listening on `channel` (NOTIFY). */
  notify(channel: string): Promise<void>;
  /** Fails when the database cannot answer. */
  ping(): Promise<void>;
  /** Closes every connection. */
  close(): Promise<void>;
}
