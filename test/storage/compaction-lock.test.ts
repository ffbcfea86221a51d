/**
 * Compaction on PostgreSQL runs on one replica at a time: while another session holds
 * the compaction lock (a replica compacting), a compaction here leaves the log alone
 * and says it did not run; once the lock is free it compacts.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactionLockKey } from '../../src/storage/event-log.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { fieldsOf, object } from './conformance-support.js';

describe('compaction on postgres', () => {
  let database: PostgresDatabase;
  let store: SqlObjectStore;
  /** Stands for another replica in the middle of a compaction. */
  let replica: pg.Client;

  beforeAll(async () => {
    const connectionString = await testDatabaseUrl();
    database = new PostgresDatabase({ connectionString, onBackgroundError: () => undefined });
    await migrateToLatest(database);
    store = await SqlObjectStore.open(database);
    replica = new pg.Client({ connectionString });
    await replica.connect();
  });

  afterAll(async () => {
    await replica?.end();
    await store?.close();
    await database?.close();
  });

  it('leaves the log to the replica holding the lock, and compacts once it is free', async () => {
    const resource = store.forResource('compaction.test', fieldsOf);
    const created = await resource.create({ namespace: 'ns', name: 'a' }, object('a'));
    const events = async () => Number((await replica.query<{ n: string }>('SELECT count(*) AS n FROM cairn_events')).rows[0].n);
    expect(await events()).toBeGreaterThan(0);

    await replica.query('SELECT pg_advisory_lock($1::bigint)', [String(compactionLockKey)]);
    try {
      const skipped = await store.compact(0);
      expect(skipped.ran).toBe(false);
      expect(await events()).toBeGreaterThan(0);
    } finally {
      await replica.query('SELECT pg_advisory_unlock($1::bigint)', [String(compactionLockKey)]);
    }
    const ran = await store.compact(0);
    expect(ran.ran).toBe(true);
    expect(BigInt(ran.compacted)).toBeGreaterThanOrEqual(BigInt(created.metadata.resourceVersion));
    // The one event left holds the live object's current state, which compaction keeps.
    expect(await events()).toBe(1);
  });
});
