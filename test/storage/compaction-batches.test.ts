/**
 * Compaction of a large event log never blocks writers for more than one batch: it
 * deletes the log's prefix a batch at a time, each batch its own transaction, and
 * writes commit between them. Proven on both backends with batches of three: after
 * each batch, its mark is committed (another read sees it), and a write, awaited
 * before the next batch starts, commits (PGlite runs one transaction at a time, so a
 * compaction holding its connection across batches would never let it through).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/database.js';
import { compactEvents } from '../../src/storage/event-log.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { fieldsOf, object } from './conformance-support.js';

const backends: readonly [string, () => Promise<Database>][] = [
  ['pglite', () => PGliteDatabase.open()],
  ['postgres', async () => new PostgresDatabase({ connectionString: await testDatabaseUrl() })],
];

describe.each(backends)('compaction in batches on %s', (_name, open) => {
  let database: Database;
  let store: SqlObjectStore;

  beforeAll(async () => {
    database = await open();
    await migrateToLatest(database);
    store = await SqlObjectStore.open(database, { objectCacheSize: 0 });
  });

  afterAll(async () => {
    await store?.close();
    await database?.close();
  });

  const counters = () =>
    database.run(async (db) => {
      const { rows } = await sql<{ events: number; compacted: string }>`
        SELECT (SELECT count(*)::int FROM cairn_events) AS events, (SELECT compacted::text FROM cairn_compaction WHERE id = 1) AS compacted`.execute(db);
      return { events: rows[0].events, compacted: BigInt(rows[0].compacted) };
    });

  it('deletes the prefix a batch at a time, each committed, with writes committing between batches', async () => {
    const resource = store.forResource('compaction-batches.test', fieldsOf);
    // Objects created and deleted: none of their events holds a live object's current state, which compaction keeps.
    for (let i = 0; i < 5; i++) {
      await resource.create({ namespace: 'ns', name: `old-${i}` }, object(`old-${i}`));
      await resource.delete({ namespace: 'ns', name: `old-${i}` });
    }
    const before = await counters();
    expect(before.events).toBe(10);

    const batches: { compacted: bigint; events: number; written: bigint }[] = [];
    const result = await compactEvents(database, new Date(Date.now() + 60_000), {
      batchSize: 3,
      onBatch: async (compacted, removed) => {
        expect(removed).toBe(batches.length < 3 ? 3 : 1);
        const seen = await counters();
        expect(seen.compacted).toBe(compacted);
        const written = await resource.create({ namespace: 'ns', name: `new-${batches.length}` }, object(`new-${batches.length}`));
        batches.push({ compacted, events: seen.events, written: BigInt(written.metadata.resourceVersion) });
      },
    });

    expect(result.ran).toBe(true);
    expect(result.removed).toBe(10);
    expect(batches.length).toBe(4);
    // Each batch dropped three of the old events (the last, the one left); the writes between them are newer than the prefix and stay.
    expect(batches.map((b) => b.events)).toEqual([7, 5, 3, 3]);
    for (let i = 1; i < batches.length; i++) {
      expect(batches[i].compacted).toBeGreaterThan(batches[i - 1].compacted);
      // The write after batch i-1 committed before batch i did.
      expect(batches[i - 1].written).toBeGreaterThan(batches[i - 1].compacted);
    }
    const after = await counters();
    expect(after.compacted).toBe(result.compacted);
    expect(after.events).toBe(batches.length);
  });
});
