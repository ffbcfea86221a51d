/**
 * Rows written in an older version (before the storage version changed) are read in
 * the storage version everywhere storage hands out an object, and rewriting them is an
 * ordinary optimistic write: `npm run storage-migrate`'s building blocks, on both
 * backends, with the test-only widgets.test group (v1 hub, v2 with spec.replicas).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredObject } from '../../src/machinery/meta/object.js';
import { parseFieldSelector } from '../../src/machinery/selectors/field-selector.js';
import { resourceStorage, storageName, storageVersioningOf } from '../../src/registry/resource-storage.js';
import type { Database } from '../../src/storage/database.js';
import type { ResourceStorage, Revision } from '../../src/storage/interfaces.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { migrateStorageVersion, type StorageMigrationProgress } from '../../src/storage/storage-version-migration.js';
import { rowVersions, writeOlderRow } from '../support/stored-rows.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { widgets } from '../support/widgets/register.js';
import { collect, Gate } from './conformance-support.js';

const opens: Record<string, () => Promise<Database>> = {
  pglite: () => PGliteDatabase.open(),
  postgres: async () => new PostgresDatabase({ connectionString: await testDatabaseUrl() }),
};

/** A Widget in v2, as the older release stored it. */
const v2Widget = (name: string, replicas: number, namespace = 'ns') => ({
  apiVersion: 'widgets.test/v2',
  kind: 'Widget',
  metadata: { name, namespace, uid: `uid-${name}` },
  spec: { replicas, color: 'red' },
});

describe.each(Object.keys(opens))('objects stored in an older version, on %s', (backend) => {
  let database: Database;
  let store: SqlObjectStore;
  let storage: ResourceStorage;
  /** The same resource with no object cache: every read from SQL. */
  let uncached: SqlObjectStore;
  const resource = storageName(widgets);

  beforeAll(async () => {
    database = await opens[backend]();
    await migrateToLatest(database);
    // Rows written behind storage's back reach its watch cache by the safety poll: a short one keeps the watch tests quick.
    store = await SqlObjectStore.open(database, { safetyPollMs: 50 });
    storage = resourceStorage(store, widgets);
    uncached = await SqlObjectStore.open(database, { safetyPollMs: 50, objectCacheSize: 0 });
  });

  afterAll(async () => {
    await uncached?.close();
    await store?.close();
    await database?.close();
  });

  it('are read in the storage version by get, list and watch', async () => {
    const watcher = await storage.watch('ns', await store.currentResourceVersion(), {});
    const written = await writeOlderRow(database, resource, v2Widget('read', 3));
    const inStorageVersion = { apiVersion: 'widgets.test/v1', kind: 'Widget', spec: { size: 3, color: 'red' } };

    const got = await storage.get({ namespace: 'ns', name: 'read' });
    expect(got).toMatchObject(inStorageVersion);
    expect(got.spec).not.toHaveProperty('replicas');
    expect(got.metadata.resourceVersion).toBe(written.metadata.resourceVersion);
    const listed = await storage.list('ns', { predicate: {} });
    expect(listed.items.find((item) => item.metadata.name === 'read')).toMatchObject(inStorageVersion);
    for (const read of [storage, resourceStorage(uncached, widgets)]) {
      const texts = (await read.listJson('ns', { predicate: {} })).items.map((text) => JSON.parse(text) as StoredObject);
      expect(texts.find((item) => item.metadata.name === 'read')).toMatchObject(inStorageVersion);
    }
    const [event] = await collect(watcher, 1);
    expect(event).toMatchObject({ type: 'ADDED', object: inStorageVersion, resourceVersion: written.metadata.resourceVersion });
    // A converted event object is shared by the watchers like any other: frozen.
    expect(Object.isFrozen(event.object.spec)).toBe(true);
    // Reading converts; it does not write.
    expect(await rowVersions(database, resource, 'ns', 'read')).toEqual({ row: 'widgets.test/v2', object: 'widgets.test/v2' });
  });

  it('are handed to an update in the storage version and rewritten in it, even when nothing else changes', async () => {
    const written = await writeOlderRow(database, resource, v2Widget('update', 2));
    const seen: unknown[] = [];
    const watcher = await storage.watch('ns', written.metadata.resourceVersion, {});
    const rewritten = await storage.guaranteedUpdate({ namespace: 'ns', name: 'update' }, (current) => {
      seen.push(current);
      return current!;
    });
    expect(seen).toMatchObject([{ apiVersion: 'widgets.test/v1', spec: { size: 2 } }]);
    expect(rewritten.changed).toBe(true);
    expect(BigInt(rewritten.object.metadata.resourceVersion)).toBeGreaterThan(BigInt(written.metadata.resourceVersion));
    expect(await rowVersions(database, resource, 'ns', 'update')).toEqual({ row: 'widgets.test/v1', object: 'widgets.test/v1' });
    const [event] = await collect(watcher, 1);
    expect(event).toMatchObject({ type: 'MODIFIED', object: { apiVersion: 'widgets.test/v1', spec: { size: 2 } } });
    // In the storage version now, the same update is a no-op again.
    expect((await storage.guaranteedUpdate({ namespace: 'ns', name: 'update' }, (current) => current!)).changed).toBe(false);
  });

  it('are read in the storage version in the object’s history, with the revisions written since', async () => {
    // An older release's event, as a replica not yet upgraded writes it: no uid column, no origin.
    const written = await writeOlderRow(database, resource, v2Widget('history', 3));
    const key = { namespace: 'ns', name: 'history' };
    const updated = await storage.guaranteedUpdate(key, (current) => ({ ...current!, spec: { ...(current!.spec as object), color: 'blue' } }));
    for (const request of [{ limit: 10 }, { limit: 1 }, { limit: 10, uid: 'uid-history' }]) {
      const revisions: Revision[] = [];
      for (let page = await storage.history(key, request); ; page = await storage.history(key, { ...request, before: page.continueBefore })) {
        revisions.push(...page.revisions);
        if (page.continueBefore === undefined) break;
      }
      expect(revisions).toMatchObject([
        {
          type: 'MODIFIED',
          resourceVersion: updated.object.metadata.resourceVersion,
          object: { apiVersion: 'widgets.test/v1', spec: { size: 3, color: 'blue' } },
        },
        { type: 'ADDED', resourceVersion: written.metadata.resourceVersion, object: { apiVersion: 'widgets.test/v1', spec: { size: 3, color: 'red' } } },
      ]);
      expect(revisions[1].object.spec).not.toHaveProperty('replicas');
      expect(revisions[1].origin).toBeUndefined();
      expect(Object.isFrozen(revisions[1].object.spec)).toBe(true);
    }
  });

  it('keep a write that lands while their rewrite computes', async () => {
    await writeOlderRow(database, resource, v2Widget('raced', 1));
    const key = { namespace: 'ns', name: 'raced' };
    const gate = new Gate();
    const rewriting = storage.guaranteedUpdate(key, async (current) => {
      await gate.pass();
      return current!;
    });
    await gate.reached;
    const racer = await storage.guaranteedUpdate(key, (current) => ({ ...current!, spec: { ...(current!.spec as object), size: 7 } }));
    gate.release();
    // The rewrite read the object again, found it in the storage version, and had nothing to write.
    const result = await rewriting;
    expect(result.changed).toBe(false);
    expect(result.object.metadata.resourceVersion).toBe(racer.object.metadata.resourceVersion);
    expect(await storage.get(key)).toMatchObject({ apiVersion: 'widgets.test/v1', spec: { size: 7 } });
  });

  it('fail to read in a version that has no conversion', async () => {
    await writeOlderRow(database, resource, { ...v2Widget('unknown', 1), apiVersion: 'widgets.test/v9' });
    await expect(storage.get({ namespace: 'ns', name: 'unknown' })).rejects.toThrow(/no conversion from widgets.test\/v9/);
  });

  it('are found a keyed page at a time and all rewritten by the migration, each with a MODIFIED event', async () => {
    const paged = store.forResource('paged.widgets.test', (o) => widgets.strategy.selectableFields(o), storageVersioningOf(widgets));
    const namespaces = ['a', 'b'];
    for (const namespace of namespaces) {
      for (let i = 0; i < 3; i++) {
        await writeOlderRow(database, 'paged.widgets.test', v2Widget(`w-${i}`, i, namespace), { fields: { 'spec.replicas': String(i) } });
      }
    }
    await paged.create(
      { namespace: 'a', name: 'current' },
      { apiVersion: 'widgets.test/v1', kind: 'Widget', metadata: { name: 'current', namespace: 'a', uid: 'u' } },
    );
    expect(await paged.countStale()).toBe(6);
    expect(await paged.staleKeys(undefined, 4)).toEqual([
      { namespace: 'a', name: 'w-0' },
      { namespace: 'a', name: 'w-1' },
      { namespace: 'a', name: 'w-2' },
      { namespace: 'b', name: 'w-0' },
    ]);
    expect(await paged.staleKeys({ namespace: 'b', name: 'w-0' }, 4)).toEqual([
      { namespace: 'b', name: 'w-1' },
      { namespace: 'b', name: 'w-2' },
    ]);

    const watcher = await paged.watch(undefined, await store.currentResourceVersion(), {});
    const progress: StorageMigrationProgress[] = [];
    const result = await migrateStorageVersion(paged, { pageSize: 4, onProgress: (p) => progress.push(p) });
    expect(result).toEqual({ total: 6, rewritten: 6 });
    expect(progress).toEqual([
      { done: 0, total: 6 },
      { done: 4, total: 6 },
      { done: 6, total: 6 },
    ]);
    expect(await paged.countStale()).toBe(0);
    const events = await collect(watcher, 6);
    expect(
      events.map((e) => [e.type, e.object.metadata.namespace, e.object.metadata.name, e.object.apiVersion, (e.object.spec as { size: number }).size]),
    ).toEqual(namespaces.flatMap((namespace) => [0, 1, 2].map((i) => ['MODIFIED', namespace, `w-${i}`, 'widgets.test/v1', i])));
    // The selectable fields were computed again, from the object in the storage version.
    const sized = await paged.list(undefined, { predicate: { fieldSelector: parseFieldSelector('spec.size=2') } });
    expect(sized.items.map((item) => `${item.metadata.namespace}/${item.metadata.name}`)).toEqual(['a/w-2', 'b/w-2']);
    // Nothing is left: a second run rewrites nothing.
    expect(await migrateStorageVersion(paged, { pageSize: 4 })).toEqual({ total: 0, rewritten: 0 });
  });
});
