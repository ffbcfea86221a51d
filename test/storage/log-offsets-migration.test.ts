/**
 * Migration 0011 on a database that already has logs: each line gets its byte offset
 * from its log's first kept line, each log's `appended` starts as its size, and an
 * append over the cap afterwards removes the oldest lines by those offsets.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';

/** `count` lines of 99 characters (100 bytes with the newline), numbered from `from`. */
const numbered = (from: number, count: number) => Array.from({ length: count }, (_, i) => `${String(from + i).padStart(4, '0')} ${'x'.repeat(94)}`);

describe('migration 0011-log-offsets', () => {
  let database: PGliteDatabase;
  beforeAll(async () => {
    database = await PGliteDatabase.open();
    await migrateToLatest(database, '0010-event-origins');
    await database.run(async (db) => {
      // Two logs; the first had its two oldest lines removed already, another log's line between them.
      const rows = [...numbered(0, 5).map((line) => ['uid-a', line]), ['uid-b', numbered(100, 1)[0]], ...numbered(5, 3).map((line) => ['uid-a', line])];
      for (const [uid, line] of rows) await sql`INSERT INTO cairn_log_lines (uid, stream, line) VALUES (${uid}, 'one', ${line})`.execute(db);
      await sql`DELETE FROM cairn_log_lines WHERE uid = 'uid-a' AND seq <= 2`.execute(db);
      await sql`INSERT INTO cairn_logs (uid, bytes, removed_through) VALUES ('uid-a', 600, 2), ('uid-b', 100, 0)`.execute(db);
    });
    await migrateToLatest(database, '0011-log-offsets');
  });
  afterAll(async () => {
    await database?.close();
  });

  const offsets = (uid: string) =>
    database.run(async (db) =>
      (await sql<{ o: string }>`SELECT byte_offset::text AS o FROM cairn_log_lines WHERE uid = ${uid} ORDER BY seq`.execute(db)).rows.map((r) => Number(r.o)),
    );

  it('numbers each log’s lines from its first kept line, and starts its appended bytes at its size', async () => {
    expect(await offsets('uid-a')).toEqual([0, 100, 200, 300, 400, 500]);
    expect(await offsets('uid-b')).toEqual([0]);
    const logs = await database.run(
      async (db) => (await sql<{ uid: string; appended: string }>`SELECT uid, appended::text FROM cairn_logs ORDER BY uid`.execute(db)).rows,
    );
    expect(logs).toEqual([
      { uid: 'uid-a', appended: '600' },
      { uid: 'uid-b', appended: '100' },
    ]);
  });

  it('lets an append over the cap remove the oldest of the migrated lines', async () => {
    await migrateToLatest(database);
    const store = await SqlObjectStore.open(database, { logMaxBytes: 700 });
    try {
      const things = store.forResource('log-offsets.test', () => ({}));
      const key = { namespace: 'ns', name: 'a' };
      await things.create(key, { apiVersion: 'test/v1', kind: 'Thing', metadata: { name: 'a', namespace: 'ns', uid: 'uid-a' } });
      await things.logs.append(key, numbered(8, 3), () => 'one');
      const kept = await things.logs.read('uid-a', { after: 0n, limit: 100 });
      expect(kept.map((l) => l.text)).toEqual(numbered(4, 7));
      expect(await offsets('uid-a')).toEqual([200, 300, 400, 500, 600, 700, 800]);
    } finally {
      await store.close();
    }
  });
});
