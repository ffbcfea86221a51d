/**
 * An object's history under compaction, on both backends: the revisions older than the
 * retention go, but a live object's newest, which stays however old it is; a deleted
 * object's revisions stay readable until then; and the page says which mark its
 * history is complete after: the resource's own where a longer retention keeps its
 * events past the log's mark, the log's otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/database.js';
import type { ResourceStorage, Revision, StorageKey } from '../../src/storage/interfaces.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { fieldsOf, key, object } from './conformance-support.js';

const backends: readonly [string, () => Promise<Database>][] = [
  ['pglite', () => PGliteDatabase.open()],
  ['postgres', async () => new PostgresDatabase({ connectionString: await testDatabaseUrl() })],
];

/** Lets the database's clock pass the events just written, so a retention of 0 covers them. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe.each(backends)('an object’s history under compaction on %s', (_name, open) => {
  let database: Database;
  let store: SqlObjectStore;

  beforeAll(async () => {
    database = await open();
    await migrateToLatest(database);
    store = await SqlObjectStore.open(database, { compactionBatchSize: 2 });
  });

  afterAll(async () => {
    await store?.close();
    await database?.close();
  });

  const versions = async (storage: ResourceStorage, at: StorageKey, uid?: string): Promise<string[]> =>
    (await storage.history(at, { limit: 100, ...(uid ? { uid } : {}) })).revisions.map((r: Revision) => r.resourceVersion);

  /** Creates `name` and changes it twice; returns its three resourceVersions, oldest first. */
  async function written(storage: ResourceStorage, name: string): Promise<string[]> {
    const rvs = [(await storage.create(key(name), object(name))).metadata.resourceVersion];
    for (const v of [1, 2]) rvs.push((await storage.guaranteedUpdate(key(name), (o) => ({ ...o, spec: { v } }))).object.metadata.resourceVersion);
    return rvs;
  }

  it('removes revisions older than the retention, but a live object’s newest, and a deleted object’s once they are older', async () => {
    const things = store.forResource('history-compaction.test', fieldsOf);
    const live = await written(things, 'live');
    const deleted = await written(things, 'deleted');
    deleted.push((await things.delete(key('deleted')))!.metadata.resourceVersion);
    expect(await versions(things, key('deleted'))).toEqual([...deleted].reverse());
    expect(await versions(things, key('deleted'), 'uid-deleted')).toEqual([...deleted].reverse());

    // Nothing is older than a minute: nothing goes, and the history is complete after the mark, as before.
    expect((await store.compact(60_000)).removed).toBe(0);
    expect(await versions(things, key('deleted'))).toEqual([...deleted].reverse());

    await tick();
    const compaction = await store.compact(0);
    expect(await versions(things, key('live'))).toEqual([live.at(-1)]);
    expect(await versions(things, key('live'), 'uid-live')).toEqual([live.at(-1)]);
    expect(await versions(things, key('deleted'))).toEqual([]);
    expect(await versions(things, key('deleted'), 'uid-deleted')).toEqual([]);
    const page = await things.history(key('live'), { limit: 10 });
    expect(page.compacted).toBe(compaction.compacted);
    expect(BigInt(page.compacted)).toBeGreaterThan(BigInt(live.at(-1)!));
    expect(page.resourceVersion).toBe(await store.currentResourceVersion());
  });

  it('reads the revisions a longer retention keeps past the log’s mark, complete after the resource’s own mark', async () => {
    const kept = store.forResource('history-kept.test', fieldsOf);
    const other = store.forResource('history-not-kept.test', fieldsOf);
    const keptVersions = await written(kept, 'x');
    await written(other, 'x');
    await tick();
    const longer = new Map([['history-kept.test', 60_000]]);
    const compaction = await store.compact(0, longer);
    // The log's mark moved past every revision; the kept resource's history is whole, from the start of its own mark.
    expect(BigInt(compaction.compacted)).toBeGreaterThanOrEqual(BigInt(keptVersions.at(-1)!));
    const page = await kept.history(key('x'), { limit: 10 });
    expect(page.revisions.map((r) => r.resourceVersion)).toEqual([...keptVersions].reverse());
    expect(BigInt(page.compacted)).toBeLessThan(BigInt(keptVersions[0]));
    expect((await other.history(key('x'), { limit: 10 })).compacted).toBe(compaction.compacted);

    // Once older than its own retention, its revisions go too, but the live object's newest, and its mark moves past them.
    await kept.guaranteedUpdate(key('x'), (o) => ({ ...o, spec: { v: 3 } }));
    await tick();
    await store.compact(0, new Map([['history-kept.test', 0]]));
    const after = await kept.history(key('x'), { limit: 10 });
    expect(after.revisions).toHaveLength(1);
    expect(BigInt(after.compacted)).toBeGreaterThanOrEqual(BigInt(keptVersions.at(-1)!));
  });

  it('continues a history while compaction removes the revisions it has not reached: what is left, and the mark says the rest is gone', async () => {
    const things = store.forResource('history-paged.test', fieldsOf);
    const rvs = [(await things.create(key('p'), object('p'))).metadata.resourceVersion];
    for (let v = 1; v < 6; v++) rvs.push((await things.guaranteedUpdate(key('p'), (o) => ({ ...o, spec: { v } }))).object.metadata.resourceVersion);
    const first = await things.history(key('p'), { limit: 2 });
    expect(first.revisions.map((r) => r.resourceVersion)).toEqual([rvs[5], rvs[4]]);
    await tick();
    await store.compact(0);
    const rest = await things.history(key('p'), { limit: 2, before: first.continueBefore });
    // The newest revision stays (the live object's); the older ones the first page had not reached are gone, as its mark says.
    expect(rest.revisions).toEqual([]);
    expect(rest.continueBefore).toBeUndefined();
    expect(BigInt(rest.compacted)).toBeGreaterThanOrEqual(BigInt(rvs[3]));
  });
});
