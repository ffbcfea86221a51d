/**
 * What compaction keeps and what it reports, on both backends: every event older than
 * the retention goes, except the one holding a live object's current state, which
 * stays however old it is until the object changes again (then it goes with the event
 * that changed it), and the metrics count the events removed, batch by batch, and the
 * resourceVersion compacted through.
 */
import { sql } from 'kysely';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/database.js';
import { StorageMetrics } from '../../src/storage/metrics.js';
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

describe.each(backends)('compaction retention on %s', (_name, open) => {
  let database: Database;
  let store: SqlObjectStore;
  let registry: Registry;

  beforeAll(async () => {
    database = await open();
    await migrateToLatest(database);
    registry = new Registry();
    store = await SqlObjectStore.open(database, { compactionBatchSize: 2, metrics: new StorageMetrics(registry) });
  });

  afterAll(async () => {
    await store?.close();
    await database?.close();
  });

  /** The resourceVersions of the events left in the log, oldest first. */
  const eventsLeft = () =>
    database.run(async (db) => {
      const { rows } = await sql<{ rv: string }>`SELECT resource_version::text AS rv FROM cairn_events ORDER BY resource_version`.execute(db);
      return rows.map((row) => row.rv);
    });

  /** The resourceVersions of one resource's events left in the log, oldest first. */
  const eventsOf = (resource: string) =>
    database.run(async (db) => {
      const { rows } = await sql<{
        rv: string;
      }>`SELECT resource_version::text AS rv FROM cairn_events WHERE resource = ${resource} ORDER BY resource_version`.execute(db);
      return rows.map((row) => row.rv);
    });

  const metric = async (name: string) => (await registry.getSingleMetric(name)!.get()).values[0]?.value;

  it('keeps a live object’s newest state past the retention, until it changes again', async () => {
    const things = store.forResource('compaction-retention.test', fieldsOf);
    await things.create(key('kept'), object('kept'));
    const { object: kept } = await things.guaranteedUpdate(key('kept'), (o) => ({ ...o, spec: { v: 2 } }));
    const untouched = await things.create(key('untouched'), object('untouched'));
    await things.create(key('gone'), object('gone'));
    await things.delete(key('gone'));
    await new Promise((resolve) => setTimeout(resolve, 20));

    // A retention of 0: every event is older than it.
    const first = await store.compact(0);
    expect(first.ran).toBe(true);
    expect(first.removed).toBe(3);
    expect(await eventsLeft()).toEqual([kept.metadata.resourceVersion, untouched.metadata.resourceVersion]);
    expect(first.compacted).toBe(await store.currentResourceVersion());
    // Readers still start after the mark: the kept events are history, not a watch's past.
    expect((await things.get(key('kept'))).metadata.resourceVersion).toBe(kept.metadata.resourceVersion);

    // The kept state goes once the event that replaced it is compacted: an update for one, a delete for the other.
    const { object: updated } = await things.guaranteedUpdate(key('kept'), (o) => ({ ...o, spec: { v: 3 } }));
    await things.delete(key('untouched'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await store.compact(0);
    expect(second.removed).toBe(3);
    expect(await eventsLeft()).toEqual([updated.metadata.resourceVersion]);

    // Nothing newer than the retention goes.
    await things.guaranteedUpdate(key('kept'), (o) => ({ ...o, spec: { v: 4 } }));
    const third = await store.compact(60_000);
    expect(third.removed).toBe(0);
    expect(await eventsLeft()).toHaveLength(2);

    // The metrics count every batch's removals, and where the log is compacted through.
    expect(await metric('cairn_compaction_events_removed_total')).toBe(6);
    expect(await metric('cairn_compaction_resource_version')).toBe(Number(second.compacted));
  });

  it('keeps the history of a resource with a longer retention past the mark watches start after, until it is older than that', async () => {
    const kept = store.forResource('kept-longer.test', fieldsOf);
    const other = store.forResource('kept-shorter.test', fieldsOf);
    for (const things of [kept, other]) {
      await things.create(key('x'), object('x'));
      await things.guaranteedUpdate(key('x'), (o) => ({ ...o, spec: { v: 2 } }));
    }
    const [keptEvents, otherEvents] = [await eventsOf('kept-longer.test'), await eventsOf('kept-shorter.test')];
    await new Promise((resolve) => setTimeout(resolve, 20));

    // A minute for one resource, nothing for the rest: the mark moves past both, and only the other's old state goes.
    const first = await store.compact(0, new Map([['kept-longer.test', 60_000]]));
    expect(first.compacted).toBe(await store.currentResourceVersion());
    expect(await eventsOf('kept-longer.test')).toEqual(keptEvents);
    expect(await eventsOf('kept-shorter.test')).toEqual(otherEvents.slice(1));
    // Its watches start after its own mark, which the log's moved past: the update after its create is still there to watch.
    const watcher = await kept.watch(undefined, keptEvents[0], {});
    const next = await watcher[Symbol.asyncIterator]().next();
    watcher.stop();
    expect(next.value).toMatchObject({ type: 'MODIFIED', resourceVersion: keptEvents[1] });
    // The other's are after the log's.
    await expect(other.watch(undefined, otherEvents[0], {})).rejects.toSatisfy((e: { code?: string }) => e.code === 'TooOld');

    // Once older than its own retention, it goes as the rest did, but its live object's current state.
    const second = await store.compact(0, new Map([['kept-longer.test', 0]]));
    expect(second.removed).toBe(1);
    expect(await eventsOf('kept-longer.test')).toEqual(keptEvents.slice(1));
  });

  it('lets the history kept for a resource go once its longer retention is dropped', async () => {
    const dropped = store.forResource('kept-dropped.test', fieldsOf);
    await dropped.create(key('x'), object('x'));
    await dropped.guaranteedUpdate(key('x'), (o) => ({ ...o, spec: { v: 2 } }));
    const events = await eventsOf('kept-dropped.test');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await store.compact(0, new Map([['kept-dropped.test', 60_000]]));
    expect(await eventsOf('kept-dropped.test')).toEqual(events);
    // Kept, it is readable: the list at its create is the object before its update.
    const before = await dropped.list(undefined, { predicate: {}, resourceVersion: events[0] });
    expect(before.items.map((o) => [o.metadata.resourceVersion, o.spec])).toEqual([[events[0], undefined]]);
    // Restarted without the override: the resource's own pass takes what was kept, up to the log's mark, and its mark goes with it.
    await store.compact(0);
    expect(await eventsOf('kept-dropped.test')).toEqual(events.slice(1));
    await expect(dropped.list(undefined, { predicate: {}, resourceVersion: events[0] })).rejects.toSatisfy((e: { code?: string }) => e.code === 'TooOld');
  });
});
