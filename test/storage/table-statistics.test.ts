/**
 * Planner statistics on PGlite, which runs no autovacuum: gathered when the object table
 * or the event log has never had them or has changed by a tenth since; left to
 * autovacuum on PostgreSQL.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { refreshStatistics } from '../../src/storage/table-statistics.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { fieldsOf, key, object } from './conformance-support.js';

describe('planner statistics', () => {
  let pglite: Database;
  let store: SqlObjectStore;

  beforeAll(async () => {
    pglite = await PGliteDatabase.open();
    await migrateToLatest(pglite);
    store = await SqlObjectStore.open(pglite);
  });

  afterAll(async () => {
    await store?.close();
    await pglite?.close();
  });

  const analyzedRows = async () =>
    pglite.run(async (db) =>
      Number((await sql<{ n: number }>`SELECT reltuples::int AS n FROM pg_class WHERE oid = 'cairn_objects'::regclass`.execute(db)).rows[0].n),
    );

  it('are gathered on PGlite when never gathered, and again once the tables changed by a tenth', async () => {
    expect(await refreshStatistics(pglite)).toBe(true);
    expect(await refreshStatistics(pglite)).toBe(false);
    const things = store.forResource('things.test', fieldsOf);
    for (let i = 0; i < 40; i++) await things.create(key(`t${i}`), object(`t${i}`));
    // Fewer than 50 changes: not yet.
    expect(await refreshStatistics(pglite)).toBe(false);
    for (let i = 40; i < 120; i++) await things.create(key(`t${i}`), object(`t${i}`));
    expect(await refreshStatistics(pglite)).toBe(true);
    expect(await analyzedRows()).toBe(120);
    expect(await refreshStatistics(pglite)).toBe(false);
  });

  it('are left to autovacuum on PostgreSQL', async () => {
    const postgres = new PostgresDatabase({ connectionString: await testDatabaseUrl() });
    try {
      await migrateToLatest(postgres);
      expect(await refreshStatistics(postgres)).toBe(false);
    } finally {
      await postgres.close();
    }
  });
});
