/**
 * Migration 0014 on a database that already has logs: each log's row keeps where its
 * removed prefix ends in bytes (what was appended less what is kept) in place of its
 * size, appends afterwards continue each log at its end (its last line's, or the
 * removed prefix's when no line is left) and trim it by those offsets.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceStorage } from '../../src/storage/interfaces.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';

/** `count` lines of 99 characters (100 bytes with the newline), numbered from `from`. */
const numbered = (from: number, count: number) => Array.from({ length: count }, (_, i) => `${String(from + i).padStart(4, '0')} ${'x'.repeat(94)}`);

describe('migration 0014-log-removed-bytes', () => {
  let database: PGliteDatabase;
  let store: SqlObjectStore;
  let things: ResourceStorage;

  beforeAll(async () => {
    database = await PGliteDatabase.open();
    await migrateToLatest(database, '0012-deleted-events');
    await database.run(async (db) => {
      // uid-a: 8 lines appended, its 2 oldest removed; uid-b: 3 lines appended, all removed by the age limit.
      for (let i = 2; i < 8; i++) {
        await sql`INSERT INTO cairn_log_lines (uid, stream, line, byte_offset) VALUES ('uid-a', 'one', ${numbered(i, 1)[0]}, ${i * 100})`.execute(db);
      }
      await sql`INSERT INTO cairn_logs (uid, bytes, removed_through, appended) VALUES ('uid-a', 600, 2, 800), ('uid-b', 0, 3, 300)`.execute(db);
    });
    await migrateToLatest(database);
    store = await SqlObjectStore.open(database, { logMaxBytes: 1000 });
    things = store.forResource('log-removed-bytes.test', () => ({}));
    for (const name of ['a', 'b']) {
      await things.create({ namespace: 'ns', name }, { apiVersion: 'test/v1', kind: 'Thing', metadata: { name, namespace: 'ns', uid: `uid-${name}` } });
    }
  });
  afterAll(async () => {
    await store?.close();
    await database?.close();
  });

  const offsets = (uid: string) =>
    database.run(async (db) =>
      (await sql<{ o: string }>`SELECT byte_offset::text AS o FROM cairn_log_lines WHERE uid = ${uid} ORDER BY seq`.execute(db)).rows.map((r) => Number(r.o)),
    );
  const removed = (uid: string) =>
    database.run(
      async (db) =>
        (
          await sql<{
            bytes: string;
            through: string;
          }>`SELECT removed_bytes::text AS bytes, removed_through::text AS through FROM cairn_logs WHERE uid = ${uid}`.execute(db)
        ).rows[0],
    );

  it('keeps where each log’s removed prefix ends, in bytes and in seq', async () => {
    expect(await removed('uid-a')).toEqual({ bytes: '200', through: '2' });
    expect(await removed('uid-b')).toEqual({ bytes: '300', through: '3' });
  });

  it('continues a log after its last line, and an emptied one after its removed prefix', async () => {
    await things.logs.append({ namespace: 'ns', name: 'a' }, numbered(8, 2), () => 'one');
    expect(await offsets('uid-a')).toEqual([200, 300, 400, 500, 600, 700, 800, 900]);
    await things.logs.append({ namespace: 'ns', name: 'b' }, numbered(3, 2), () => 'one');
    expect(await offsets('uid-b')).toEqual([300, 400]);
  });

  it('trims a migrated log by its offsets once it is over the cap', async () => {
    await things.logs.append({ namespace: 'ns', name: 'a' }, numbered(10, 4), () => 'one');
    const kept = await things.logs.read('uid-a', { after: 0n, limit: 100 });
    expect(kept.map((l) => l.text)).toEqual(numbered(4, 10));
    expect(await offsets('uid-a')).toEqual([400, 500, 600, 700, 800, 900, 1000, 1100, 1200, 1300]);
    expect((await removed('uid-a')).bytes).toBe('400');
  });
});
