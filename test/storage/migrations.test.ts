/**
 * Migration 0002 on a database that already has history: prior states are filled
 * in from the log, and where the log no longer has them, the compaction mark moves
 * past them so no list or watch can be answered from a gap.
 */
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as objectStore from '../../migrations/0001-object-store.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';

describe('migration 0002-event-prior-state', () => {
  let database: PGliteDatabase;
  beforeAll(async () => {
    database = await PGliteDatabase.open();
    await database.run(async (db) => {
      const migrator = new Migrator({
        db,
        provider: { getMigrations: async () => ({ '0001-object-store': objectStore }) },
        migrationTableName: 'cairn_migrations',
        migrationLockTableName: 'cairn_migrations_lock',
      });
      const { error } = await migrator.migrateToLatest();
      if (error) throw error as Error;
      // rv 3 is a MODIFIED whose ADDED (rv 1) was compacted; rv 5 follows a retained rv 4.
      await sql`
        INSERT INTO cairn_events (resource_version, resource, namespace, name, type, labels, fields, object) VALUES
          (3, 'r', 'ns', 'a', 'MODIFIED', '{}', '{}', '{"v":3}'),
          (4, 'r', 'ns', 'b', 'ADDED', '{}', '{}', '{"v":4}'),
          (5, 'r', 'ns', 'b', 'MODIFIED', '{}', '{}', '{"v":5}'),
          (6, 'r', 'ns', 'b', 'DELETED', '{}', '{}', '{"v":6}')`.execute(db);
      await sql`UPDATE cairn_compaction SET compacted = 2`.execute(db);
      await sql`UPDATE cairn_resource_version SET current = 6`.execute(db);
    });
    await migrateToLatest(database);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('fills prior states from the log and compacts past the ones it cannot know', async () => {
    const { events, compacted } = await database.run(async (db) => ({
      events: await db.selectFrom('cairn_events').select(['resource_version', 'prev_object']).orderBy('resource_version').execute(),
      compacted: await db.selectFrom('cairn_compaction').select('compacted').executeTakeFirstOrThrow(),
    }));
    // int8 arrives as a number from PGlite and as a string from pg.
    expect(String(compacted.compacted)).toBe('3');
    expect(events.map((e) => [String(e.resource_version), e.prev_object === null ? null : JSON.parse(e.prev_object)])).toEqual([
      ['4', null],
      ['5', { v: 4 }],
      ['6', { v: 5 }],
    ]);
  });
});
