/**
 * The conformance factories of the SQL backends: a fresh database (PGlite in memory,
 * or a new PostgreSQL database on the test run's server, directly or through a
 * transaction pooler), migrated, with a
 * SqlObjectStore on it: plain SQL storage (`objectCacheSize: 0`), or decorated with an
 * object cache of the bound given.
 */
import { sql } from 'kysely';
import type { Database } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { PostgresDatabase, type PostgresDatabaseOptions } from '../../src/storage/postgres-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { testDatabaseUrl } from '../support/test-database.js';
import type { ReplicaOptions, StorageBackend } from './conformance-support.js';

/** How the store is opened: its object cache's bound per resource (0: none, every read is SQL). */
export interface StoreOptions {
  readonly objectCacheSize: number;
  /** How often a store reads the log whatever it was told (default 5 s); a long one leaves other replicas' writes to the wake-ups alone. */
  readonly safetyPollMs?: number;
}

/** Closes stores before their databases, the newest first. */
async function closeAll(opened: { database: Database; store: SqlObjectStore }[]): Promise<void> {
  for (const { database, store } of opened.reverse()) {
    await store.close();
    await database.close();
  }
}

/** A SqlObjectStore on a fresh in-memory PGlite: one process, one connection, no replicas. */
export async function openPGliteStorage(options: StoreOptions): Promise<StorageBackend> {
  const database = await PGliteDatabase.open();
  await migrateToLatest(database);
  const store = await SqlObjectStore.open(database, options);
  return { store, close: () => closeAll([{ database, store }]) };
}

/** A SqlObjectStore on a fresh PostgreSQL database; replicas open further stores on it. Call it in `beforeAll`. */
export async function openPostgresStorage(options: StoreOptions): Promise<StorageBackend> {
  return openServerStorage(options, await testDatabaseUrl(), {});
}

/**
 * A SqlObjectStore on a fresh PostgreSQL database reached through PgBouncer in
 * transaction mode (`pooled` turns the database's URL into PgBouncer's), woken by
 * LISTEN on the direct URL or by polling.
 */
export async function openPooledStorage(
  options: StoreOptions,
  pooled: (directUrl: string) => Promise<string>,
  sessions: 'listen' | { pollIntervalMs: number },
): Promise<StorageBackend> {
  const directUrl = await testDatabaseUrl();
  return openServerStorage(options, await pooled(directUrl), {
    pooler: 'transaction',
    ...(sessions === 'listen' ? { listenConnectionString: directUrl } : { pollIntervalMs: sessions.pollIntervalMs }),
  });
}

async function openServerStorage(
  options: StoreOptions,
  connectionString: string,
  databaseOptions: Pick<PostgresDatabaseOptions, 'pooler' | 'listenConnectionString' | 'pollIntervalMs'>,
): Promise<StorageBackend> {
  const opened: { database: Database; store: SqlObjectStore }[] = [];
  const open = async (replica: ReplicaOptions = {}): Promise<{ database: Database; store: SqlObjectStore }> => {
    const database = new PostgresDatabase({ ...databaseOptions, connectionString, maxConnections: replica.maxConnections });
    try {
      if (opened.length === 0) await migrateToLatest(database);
      const store = await SqlObjectStore.open(database, { ...options, watchCacheCapacity: replica.watchCacheCapacity });
      opened.push({ database, store });
      return { database, store };
    } catch (error) {
      await database.close();
      throw error;
    }
  };
  const main = await open();
  return {
    store: main.store,
    openReplica: async (replica) => (await open(replica)).store,
    idleInTransaction: async () => {
      const { rows } = await main.database.run((db) =>
        sql<{ sessions: number }>`
          SELECT count(*)::int AS sessions FROM pg_stat_activity
          WHERE datname = current_database() AND state LIKE 'idle in transaction%'`.execute(db),
      );
      return rows[0].sessions;
    },
    close: () => closeAll(opened),
  };
}
