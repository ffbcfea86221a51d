/**
 * Reads of the past, on both backends: a get and a paged, selected list at exactly a
 * resourceVersion answer the state at it for any resourceVersion inside the
 * resource's retention (its own, where its history is kept longer than the log's),
 * across deletes and re-creates of one name; compaction that removes what a paged list
 * in flight needs makes its next page 410 (never a page of a mixed state); and a watch
 * from a resourceVersion the watch cache no longer holds reads the rest from the
 * database, then goes on live. Time passes by ageing events in the table, never by
 * sleeping: compaction's cutoff is then an explicit hour ago.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredObject } from '../../src/machinery/meta/object.js';
import type { Database } from '../../src/storage/database.js';
import type { ListRequest, ResourceStorage } from '../../src/storage/interfaces.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { collect, expectStorageError, key, object } from './conformance-support.js';

const backends: readonly [string, () => Promise<Database>][] = [
  ['pglite', () => PGliteDatabase.open()],
  ['postgres', async () => new PostgresDatabase({ connectionString: await testDatabaseUrl() })],
];

const hour = 3_600_000;
const fieldsOf = (o: { metadata?: { name?: string }; spec?: unknown }) => ({
  'metadata.name': String(o.metadata?.name ?? ''),
  'spec.tier': String((o.spec as { tier?: string } | undefined)?.tier ?? ''),
});

describe.each(backends)('exact reads on %s', (_name, open) => {
  let database: Database;
  let store: SqlObjectStore;

  beforeAll(async () => {
    database = await open();
    await migrateToLatest(database);
    // A watch cache of five events: a watch from further back reads the database.
    store = await SqlObjectStore.open(database, { compactionBatchSize: 3, watchCacheCapacity: 5 });
  });

  afterAll(async () => {
    await store?.close();
    await database?.close();
  });

  const current = async () => BigInt(await store.currentResourceVersion());
  /** Makes the events up to `rv` two hours old, as if that much time had passed since they were written. */
  const age = (rv: bigint) =>
    database.run((db) =>
      sql`UPDATE cairn_events SET created_at = created_at - interval '2 hours' WHERE resource_version <= ${rv.toString()}::bigint`.execute(db),
    );
  /** Every page of an exact list at `rv`, `limit` at a time: each page's names, and the continue chain followed to its end. */
  const pages = async (things: ResourceStorage, rv: bigint, request: Partial<ListRequest> = {}, limit = 1): Promise<string[][]> => {
    const found: string[][] = [];
    let after: ListRequest['after'];
    do {
      const page = await things.list('ns', { predicate: {}, ...request, resourceVersion: rv.toString(), limit, after });
      expect(page.resourceVersion).toBe(rv.toString());
      found.push(page.items.map((o) => o.metadata.name));
      after = page.continueAfter;
    } while (after);
    return found;
  };
  const getAt = (things: ResourceStorage, name: string, rv: bigint) => things.get(key(name), { resourceVersion: rv.toString(), resourceVersionMatch: 'Exact' });
  const tier = (o: StoredObject) => (o.spec as { tier?: string } | undefined)?.tier;

  it('answers the state at each resourceVersion across a delete and a re-create of one name', async () => {
    const things = store.forResource('exact-history.test', fieldsOf);
    await things.create(key('b'), object('b', { spec: { tier: 'gold' } }, { app: 'x' }));
    const beforeA = await current();
    const created = await things.create(key('a'), object('a', { spec: { tier: 'gold' } }, { app: 'x' }));
    const { object: updated } = await things.guaranteedUpdate(key('a'), (o) => ({ ...o!, spec: { tier: 'silver' } }));
    const deleted = await things.delete(key('a'));
    const afterDelete = await current();
    const recreated = await things.create(key('a'), {
      ...object('a', { spec: { tier: 'bronze' } }, { app: 'y' }),
      metadata: { name: 'a', namespace: 'ns', uid: 'uid-a2', labels: { app: 'y' } },
    });
    await things.create(key('c'), object('c', { spec: { tier: 'gold' } }, { app: 'x' }));
    const at = (o: StoredObject | undefined) => BigInt(o!.metadata.resourceVersion);

    // Get: absent before its create, each state after, absent between its delete and its re-create, then the new one.
    await expectStorageError(getAt(things, 'a', beforeA), 'KeyNotFound');
    expect(await getAt(things, 'a', at(created))).toMatchObject({
      metadata: { uid: 'uid-a', resourceVersion: created.metadata.resourceVersion },
      spec: { tier: 'gold' },
    });
    expect(tier(await getAt(things, 'a', at(updated)))).toBe('silver');
    expect(tier(await getAt(things, 'a', at(deleted) - 1n))).toBe('silver');
    await expectStorageError(getAt(things, 'a', afterDelete), 'KeyNotFound');
    expect(await getAt(things, 'a', at(recreated))).toMatchObject({ metadata: { uid: 'uid-a2' }, spec: { tier: 'bronze' } });
    // c, created after, is absent before; b, untouched, is there at every one.
    await expectStorageError(getAt(things, 'c', at(recreated)), 'KeyNotFound');
    expect((await getAt(things, 'b', beforeA)).metadata.name).toBe('b');
    await expectStorageError(getAt(things, 'a', (await current()) + 1n), 'TooLarge');

    // List, a page of one at a time: the same states, with the continue chain at the same resourceVersion.
    expect(await pages(things, beforeA)).toEqual([['b']]);
    expect(await pages(things, at(created))).toEqual([['a'], ['b']]);
    expect(await pages(things, afterDelete)).toEqual([['b']]);
    expect(await pages(things, at(recreated))).toEqual([['a'], ['b']]);
    expect(await pages(things, await current())).toEqual([['a'], ['b'], ['c']]);
    // Selected by label and by field, against the state at the resourceVersion, not the newest.
    const gold = { predicate: { fieldSelector: [{ field: 'spec.tier', operator: '=' as const, value: 'gold' }] } };
    expect(await pages(things, at(created), gold)).toEqual([['a'], ['b']]);
    expect(await pages(things, at(updated), gold)).toEqual([['b']]);
    expect(await pages(things, await current(), gold)).toEqual([['b'], ['c']]);
    const appX = { predicate: { labelSelector: [{ key: 'app', operator: '=' as const, values: ['x'] }] } };
    expect(await pages(things, at(updated), appX)).toEqual([['a'], ['b']]);
    expect(await pages(things, at(recreated), appX)).toEqual([['b']]);
    const listed = await things.list('ns', { predicate: {}, resourceVersion: at(updated).toString() });
    expect(listed.items.map((o) => [o.metadata.name, o.metadata.resourceVersion, tier(o)])).toEqual([
      ['a', updated.metadata.resourceVersion, 'silver'],
      ['b', expect.any(String), 'gold'],
    ]);

    // Once compaction passed them, those resourceVersions are too old, for a get and for a list.
    await age(afterDelete);
    await store.compact(hour);
    await expectStorageError(getAt(things, 'a', at(created)), 'TooOld');
    await expectStorageError(things.list('ns', { predicate: {}, resourceVersion: at(created).toString() }), 'TooOld');
    expect(tier(await getAt(things, 'a', at(recreated)))).toBe('bronze');
  });

  it('ends a paged list in flight with TooOld once compaction removed what its snapshot needs, and lets it finish otherwise', async () => {
    const things = store.forResource('exact-in-flight.test', fieldsOf);
    for (const name of ['p', 'q', 'r', 's']) await things.create(key(name), object(name));
    const snapshot = await current();
    for (const name of ['p', 'q', 'r', 's']) await things.guaranteedUpdate(key(name), (o) => ({ ...o!, spec: { v: 2 } }));
    await things.delete(key('s'));

    // Compaction of what came before the snapshot does not touch it: the list goes on, a page at a time, to its end.
    const first = await things.list('ns', { predicate: {}, resourceVersion: snapshot.toString(), limit: 1 });
    expect(first.items.map((o) => [o.metadata.name, o.spec])).toEqual([['p', undefined]]);
    await age(snapshot - 1n);
    await store.compact(hour);
    const second = await things.list('ns', { predicate: {}, resourceVersion: snapshot.toString(), limit: 2, after: first.continueAfter });
    expect(second.items.map((o) => [o.metadata.name, o.spec])).toEqual([
      ['q', undefined],
      ['r', undefined],
    ]);

    // Compaction past the snapshot removes the prior states the rest of it needs: the next page is TooOld, never newer states.
    await age(await current());
    await store.compact(hour);
    await expectStorageError(things.list('ns', { predicate: {}, resourceVersion: snapshot.toString(), limit: 2, after: second.continueAfter }), 'TooOld');
    await expectStorageError(getAt(things, 's', snapshot), 'TooOld');
  });

  it('reaches back to a resource’s own retention where it is longer than the log’s', async () => {
    const kept = store.forResource('exact-kept.test', fieldsOf);
    const other = store.forResource('exact-other.test', fieldsOf);
    const keptCreate = await kept.create(key('k'), object('k'));
    await kept.guaranteedUpdate(key('k'), (o) => ({ ...o!, spec: { v: 2 } }));
    const otherCreate = await other.create(key('o'), object('o'));
    await other.guaranteedUpdate(key('o'), (o) => ({ ...o!, spec: { v: 2 } }));
    const rv = BigInt(keptCreate.metadata.resourceVersion);

    // Every event is past the log's hour, and inside the kept resource's day: the log's mark moves past both.
    await age(await current());
    const compaction = await store.compact(hour, new Map([['exact-kept.test', 24 * hour]]));
    expect(BigInt(compaction.compacted)).toBe(await current());
    // Between the log's mark and its own, the kept resource answers its state; the other, 410.
    expect((await getAt(kept, 'k', rv)).spec).toBeUndefined();
    expect((await kept.list('ns', { predicate: {}, resourceVersion: rv.toString(), limit: 5 })).items.map((o) => o.spec)).toEqual([undefined]);
    await expectStorageError(getAt(other, 'o', BigInt(otherCreate.metadata.resourceVersion)), 'TooOld');
    await expectStorageError(other.list('ns', { predicate: {}, resourceVersion: otherCreate.metadata.resourceVersion }), 'TooOld');
    const [event] = await collect(await kept.watch('ns', rv.toString(), {}), 1);
    expect(event).toMatchObject({ type: 'MODIFIED', object: { spec: { v: 2 } } });
    await expect(other.watch('ns', otherCreate.metadata.resourceVersion, {})).rejects.toMatchObject({ code: 'TooOld' });

    // Past its own retention too, it is 410 as well.
    await database.run((db) => sql`UPDATE cairn_events SET created_at = created_at - interval '2 days' WHERE resource = 'exact-kept.test'`.execute(db));
    await store.compact(hour, new Map([['exact-kept.test', 24 * hour]]));
    await expectStorageError(getAt(kept, 'k', rv), 'TooOld');
    await expect(kept.watch('ns', rv.toString(), {})).rejects.toMatchObject({ code: 'TooOld' });
  });

  it('starts a resource’s own retention where the log’s mark was when it was first kept longer', async () => {
    const later = store.forResource('exact-later.test', fieldsOf);
    const created = await later.create(key('l'), object('l'));
    const { object: second } = await later.guaranteedUpdate(key('l'), (o) => ({ ...o!, spec: { v: 2 } }));
    // Compacted as every resource is: its create is gone, its current state kept.
    await age(await current());
    const { compacted: logMark } = await store.compact(hour);
    const { object: third } = await later.guaranteedUpdate(key('l'), (o) => ({ ...o!, spec: { v: 3 } }));
    // Now kept for a day: its history reaches back to where the log's mark was, not before (what was there is gone).
    await age(await current());
    await store.compact(hour, new Map([['exact-later.test', 24 * hour]]));
    await expectStorageError(getAt(later, 'l', BigInt(created.metadata.resourceVersion)), 'TooOld');
    expect((await getAt(later, 'l', BigInt(logMark))).spec).toEqual({ v: 2 });
    expect((await getAt(later, 'l', BigInt(third.metadata.resourceVersion) - 1n)).metadata.resourceVersion).toBe(second.metadata.resourceVersion);
    expect((await getAt(later, 'l', BigInt(third.metadata.resourceVersion))).spec).toEqual({ v: 3 });
  });

  it('ends a watch reading the database with TooOld when compaction overtakes it, rather than skipping events', async () => {
    const things = store.forResource('exact-overtaken.test', fieldsOf);
    await things.create(key('o'), object('o'));
    const from = await current();
    for (let v = 1; v <= 3; v++) await things.guaranteedUpdate(key('o'), (o) => ({ ...o!, spec: { v } }));
    const noise = store.forResource('exact-overtaken-noise.test', fieldsOf);
    for (const name of ['m1', 'm2', 'm3', 'm4', 'm5', 'm6']) await noise.create(key(name), object(name));
    // Started inside the history; compaction then moves past its cursor before it reads the database.
    const watcher = await things.watch('ns', from.toString(), {});
    await age(await current());
    await store.compact(hour);
    await expect(watcher[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: 'TooOld' });
  });

  it('watches from a resourceVersion older than the watch cache’s window: every event after it once, then live ones', async () => {
    const things = store.forResource('exact-watch.test', fieldsOf);
    await things.create(key('w'), object('w'));
    const from = await current();
    const written: string[] = [];
    for (let v = 1; v <= 12; v++) written.push((await things.guaranteedUpdate(key('w'), (o) => ({ ...o!, spec: { v } }))).object.metadata.resourceVersion);
    // Other resources' writes push the resource's events out of the five the cache keeps.
    const noise = store.forResource('exact-watch-noise.test', fieldsOf);
    for (const name of ['n1', 'n2', 'n3', 'n4', 'n5', 'n6']) await noise.create(key(name), object(name));

    const watcher = await things.watch('ns', from.toString(), {});
    const iterator = watcher[Symbol.asyncIterator]();
    const seen: string[] = [];
    while (seen.length < written.length) {
      const { value } = await iterator.next();
      if (value.type !== 'BOOKMARK') seen.push(value.resourceVersion);
    }
    expect(seen).toEqual(written);
    // Then live: the next write, and nothing twice.
    const live = await things.guaranteedUpdate(key('w'), (o) => ({ ...o!, spec: { v: 13 } }));
    const { value } = await iterator.next();
    expect(value).toMatchObject({ type: 'MODIFIED', resourceVersion: live.object.metadata.resourceVersion });
    watcher.stop();
  });
});
