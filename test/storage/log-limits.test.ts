/**
 * A log's limits on every backend: the byte cap, kept by the append that exceeds it
 * (the oldest lines go, in the append's transaction: a failure keeps both the old lines
 * and the new ones out), the age limit, kept by the compaction pass a batch at a time,
 * and the one marker line a reader gets when lines it had not reached were removed.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/machinery/meta/object.js';
import type { Database } from '../../src/storage/database.js';
import type { LogLine, ResourceStorage } from '../../src/storage/interfaces.js';
import { skippedLinesMarker } from '../../src/storage/log-lines.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { testDatabaseUrl } from '../support/test-database.js';

const backends: readonly [string, () => Promise<Database>][] = [
  ['pglite', () => PGliteDatabase.open()],
  ['postgres', async () => new PostgresDatabase({ connectionString: await testDatabaseUrl() })],
];

const cap = 1000;
const fieldsOf = () => ({});
const thing = (name: string): KubeObject => ({ apiVersion: 'test/v1', kind: 'Thing', metadata: { name, namespace: 'ns', uid: `uid-${name}` } });
const key = (name: string) => ({ namespace: 'ns', name });
const inStream = () => 'one';
const texts = (lines: readonly LogLine[]) => lines.map((l) => l.text);
/** `count` lines of 99 characters (100 bytes with the newline), numbered from `from`. */
const numbered = (from: number, count: number) => Array.from({ length: count }, (_, i) => `${String(from + i).padStart(4, '0')} ${'x'.repeat(94)}`);

describe.each(backends)('log limits on %s', (_name, open) => {
  let database: Database;
  let store: SqlObjectStore;
  let things: ResourceStorage;

  beforeAll(async () => {
    database = await open();
    await migrateToLatest(database);
    store = await SqlObjectStore.open(database, { logMaxBytes: cap, compactionBatchSize: 3 });
    things = store.forResource('log-limits.test', fieldsOf);
  });
  afterAll(async () => {
    await store?.close();
    await database?.close();
  });

  /** The log's lines as stored, their bytes, and what its row and offsets say: its size is from where its removed prefix ends to its last line's end. */
  const stored = (uid: string) =>
    database.run(async (db) => {
      const { rows } = await sql<{ lines: number; bytes: string | null; size: string; removed_through: string }>`
        SELECT (SELECT count(*)::int FROM cairn_log_lines WHERE uid = ${uid}) AS lines,
               (SELECT sum(octet_length(line) + 1)::text FROM cairn_log_lines WHERE uid = ${uid}) AS bytes,
               (coalesce((SELECT max(byte_offset + octet_length(line) + 1) FROM cairn_log_lines WHERE uid = ${uid}), removed_bytes) - removed_bytes)::text AS size,
               removed_through::text AS removed_through
        FROM cairn_logs WHERE uid = ${uid}`.execute(db);
      return rows[0];
    });

  it('keeps a log under its cap, the oldest lines going first, however the appends exceed it', async () => {
    await things.create(key('capped'), thing('capped'));
    const appended: string[] = [];
    for (const count of [4, 4, 3, 1, 15, 2]) {
      const lines = numbered(appended.length, count);
      appended.push(...lines);
      await things.logs.append(key('capped'), lines, inStream);
      const kept = texts(await things.logs.read('uid-capped', { after: 0n, limit: 100 }));
      // Ten lines of 100 bytes fit; what is kept is the newest of everything appended.
      expect(kept).toEqual(appended.slice(-Math.min(10, appended.length)));
      const row = await stored('uid-capped');
      expect(Number(row.size)).toBe(kept.length * 100);
      expect(row.bytes === null ? 0 : Number(row.bytes)).toBe(Number(row.size));
    }
  });

  it('removes the oldest lines in the append’s transaction: an append that fails keeps the log as it was', async () => {
    await things.create(key('atomic'), thing('atomic'));
    await things.logs.append(key('atomic'), numbered(0, 8), inStream);
    const before = await things.logs.read('uid-atomic', { after: 0n, limit: 100 });
    // The database refuses the removal the append would make: the append fails whole.
    await database.script(`CREATE FUNCTION refuse_removal() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'removal refused'; END $$;
      CREATE TRIGGER refuse_removal BEFORE UPDATE OF removed_through ON cairn_logs FOR EACH ROW EXECUTE FUNCTION refuse_removal()`);
    try {
      await expect(things.logs.append(key('atomic'), numbered(8, 4), inStream)).rejects.toThrow(/removal refused/);
    } finally {
      await database.script('DROP TRIGGER refuse_removal ON cairn_logs; DROP FUNCTION refuse_removal()');
    }
    expect(await things.logs.read('uid-atomic', { after: 0n, limit: 100 })).toEqual(before);
    expect(Number((await stored('uid-atomic')).size)).toBe(800);
    // Without the refusal the same append goes through, and the log is at its cap.
    await things.logs.append(key('atomic'), numbered(8, 4), inStream);
    expect(texts(await things.logs.read('uid-atomic', { after: 0n, limit: 100 }))).toEqual(numbered(2, 10));
  });

  it('gives a reader whose next lines were removed one marker line, then the lines kept', async () => {
    await things.create(key('followed'), thing('followed'));
    await things.logs.append(key('followed'), numbered(0, 2), inStream);
    const [, last] = await things.logs.read('uid-followed', { after: 0n, limit: 100 });
    // Twelve lines in one append: the two read and the first two of them go.
    await things.logs.append(key('followed'), numbered(2, 12), inStream);
    const page = await things.logs.read('uid-followed', { after: last.seq, limit: 100 });
    expect(texts(page)).toEqual([skippedLinesMarker, ...numbered(4, 10)]);
    // The marker stands at the end of what was removed: a reader continuing after it is not told again.
    expect(page[0].seq).toBe(BigInt((await stored('uid-followed')).removed_through));
    expect(texts(await things.logs.read('uid-followed', { after: page[0].seq, limit: 100 }))).toEqual(numbered(4, 10));
    expect(texts(await things.logs.read('uid-followed', { after: page[0].seq, limit: 3 }))).toEqual(numbered(4, 3));
    // Nor is a reader from the start, nor one that had read past what was removed.
    expect(texts(await things.logs.read('uid-followed', { after: 0n, limit: 100 }))).toEqual(numbered(4, 10));
    expect(texts(await things.logs.read('uid-followed', { after: page[1].seq, limit: 1 }))).toEqual(numbered(5, 1));
  });

  it('removes the lines past the age limit, oldest first, and tells the readers behind', async () => {
    await things.create(key('aged'), thing('aged'));
    await things.create(key('other'), thing('other'));
    await things.logs.append(key('other'), numbered(0, 2), inStream);
    await things.logs.append(key('aged'), numbered(0, 5), inStream);
    await things.logs.append(key('aged'), numbered(5, 2), inStream);
    const aged = await things.logs.read('uid-aged', { after: 0n, limit: 100 });
    // Every line up to the fifth of this log (the other's two, and the earlier tests') is two hours old, as if appended then.
    await database.run((db) =>
      sql`UPDATE cairn_log_lines SET appended_at = appended_at - interval '2 hours' WHERE seq <= ${aged[4].seq.toString()}::bigint`.execute(db),
    );
    // Batches of three: several transactions.
    expect(await store.expireLogLines(3600_000)).toBeGreaterThanOrEqual(7);
    expect(texts(await things.logs.read('uid-aged', { after: 0n, limit: 100 }))).toEqual(numbered(5, 2));
    expect(await things.logs.read('uid-other', { after: 0n, limit: 100 })).toEqual([]);
    for (const uid of ['uid-aged', 'uid-other']) {
      const row = await stored(uid);
      expect(Number(row.size)).toBe(row.bytes === null ? 0 : Number(row.bytes));
    }
    expect(BigInt((await stored('uid-aged')).removed_through)).toBe(aged[4].seq);
    expect(texts(await things.logs.read('uid-aged', { after: aged[1].seq, limit: 100 }))).toEqual([skippedLinesMarker, ...numbered(5, 2)]);
    // Nothing younger goes.
    expect(await store.expireLogLines(3600_000)).toBe(0);
    expect(texts(await things.logs.read('uid-aged', { after: 0n, limit: 100 }))).toEqual(numbered(5, 2));
  });

  it('keeps the cap and each line’s offset while appends to one log commit concurrently (on PostgreSQL from two stores)', async () => {
    await things.create(key('busy'), thing('busy'));
    const other = database.backend === 'postgres' ? await SqlObjectStore.open(database, { logMaxBytes: cap }) : undefined;
    try {
      const writers = [things, other?.forResource('log-limits.test', fieldsOf) ?? things];
      // Forty appends of one to four lines at once: every one of them but the first waits for another's row lock.
      const appends = Array.from({ length: 40 }, (_, i) => numbered(i * 10, 1 + (i % 4)));
      await Promise.all(appends.map((lines, i) => writers[i % 2].logs.append(key('busy'), lines, inStream)));
      const kept = await things.logs.read('uid-busy', { after: 0n, limit: 100 });
      expect(kept).toHaveLength(10);
      // Whole appends in some order, the newest ten lines of them.
      const order = [...new Set(kept.map((l) => Number(l.text.slice(0, 4)) - (Number(l.text.slice(0, 4)) % 10)))];
      expect(texts(kept)).toEqual(order.flatMap((first) => appends[first / 10]).slice(-10));
      const row = await stored('uid-busy');
      expect(Number(row.size)).toBe(1000);
      expect(Number(row.bytes)).toBe(1000);
      const offsets = await database.run(
        async (db) => (await sql<{ o: string }>`SELECT byte_offset::text AS o FROM cairn_log_lines WHERE uid = 'uid-busy' ORDER BY seq`.execute(db)).rows,
      );
      // Every byte appended is counted once: the offsets run on without a gap or an overlap to the hundred lines' end.
      const appended = appends.flat().length * 100;
      expect(offsets.map((r) => Number(r.o))).toEqual(Array.from({ length: 10 }, (_, i) => appended - 1000 + i * 100));
    } finally {
      await other?.close();
    }
  });

  it('deletes a log’s row with its object', async () => {
    await things.create(key('deleted'), thing('deleted'));
    await things.logs.append(key('deleted'), numbered(0, 3), inStream);
    await things.delete(key('deleted'));
    expect(await stored('uid-deleted')).toBeUndefined();
  });
});
