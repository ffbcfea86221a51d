/**
 * The storage conformance suite: every backend (PGlite, PostgreSQL, and any
 * decorator over them, such as a caching one) runs it unchanged, through the
 * storage interfaces only. It proves the invariants of docs/architecture.md at the storage
 * boundary, and that writes are optimistic: nothing is held while an update
 * function runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metadataFields } from '../../src/machinery/meta/metadata-fields.js';
import type { KubeObject } from '../../src/machinery/meta/object.js';
import { parseFieldSelector } from '../../src/machinery/selectors/field-selector.js';
import { parseLabelSelector } from '../../src/machinery/selectors/label-selector.js';
import type { ObjectStore, ResourceStorage, StorageObjectEvent } from '../../src/storage/interfaces.js';
import { collect, expectStorageError, fieldsOf, key, object, type MakeStorage, type StorageBackend } from './conformance-support.js';
import { optimisticConcurrencyTests } from './conformance-optimistic.js';
import { readTests } from './conformance-reads.js';
import { historyTests } from './conformance-history.js';

export type { MakeStorage, ReplicaOptions, StorageBackend } from './conformance-support.js';

/**
 * Defines the conformance suite, named `name`, against the backend `makeStorage`
 * opens (once, for the whole suite).
 *
 * @example
 * runStorageConformance('SQL storage on pglite', () => openPGliteStorage({ objectCacheSize: 0 }));
 */
export function runStorageConformance(name: string, makeStorage: MakeStorage): void {
  describe(name, () => {
    let backend: StorageBackend;
    let store: ObjectStore;
    let things: ResourceStorage;

    beforeAll(async () => {
      backend = await makeStorage();
      store = backend.store;
      things = store.forResource('things.test', fieldsOf);
    });

    afterAll(async () => {
      await backend?.close();
    });

    it('creates, reads, refuses duplicates and reports missing keys', async () => {
      const created = await things.create({ namespace: 'ns', name: 'a' }, object('a', { spec: { n: 0, s: '', l: [], m: {} } }));
      expect(created.metadata.resourceVersion).toMatch(/^\d+$/);
      const read = await things.get({ namespace: 'ns', name: 'a' });
      expect(read).toEqual(created);
      // Unset is not empty: zero values read back as sent.
      expect(read.spec).toEqual({ n: 0, s: '', l: [], m: {} });
      await expectStorageError(things.create({ namespace: 'ns', name: 'a' }, object('a')), 'KeyExists');
      await expectStorageError(things.get({ namespace: 'ns', name: 'missing' }), 'KeyNotFound');
      await expectStorageError(
        things.guaranteedUpdate({ namespace: 'ns', name: 'missing' }, (c) => c!),
        'KeyNotFound',
      );
      await expectStorageError(things.delete({ namespace: 'ns', name: 'missing' }), 'KeyNotFound');
    });

    it('gives every write a strictly higher resourceVersion, across resources', async () => {
      const other = store.forResource('others.test', fieldsOf);
      const rvs: bigint[] = [];
      for (let i = 0; i < 5; i++) {
        rvs.push(BigInt((await things.create({ namespace: 'ns', name: `rv-${i}` }, object(`rv-${i}`))).metadata.resourceVersion));
        rvs.push(BigInt((await other.create({ namespace: 'ns', name: `rv-${i}` }, object(`rv-${i}`))).metadata.resourceVersion));
      }
      for (let i = 1; i < rvs.length; i++) expect(rvs[i] > rvs[i - 1]).toBe(true);
      expect(BigInt(await store.currentResourceVersion())).toBe(rvs.at(-1));
    });

    it('updates atomically, skips no-op updates, leaves what the update function answers undefined, and lets a precondition abort the write', async () => {
      const created = await things.create({ namespace: 'ns', name: 'u' }, object('u', { spec: { n: 1 } }));
      const updated = await things.guaranteedUpdate({ namespace: 'ns', name: 'u' }, (c) => ({ ...c, spec: { n: 2 } }));
      expect(updated.changed).toBe(true);
      expect(BigInt(updated.object.metadata.resourceVersion) > BigInt(created.metadata.resourceVersion)).toBe(true);
      const same = await things.guaranteedUpdate({ namespace: 'ns', name: 'u' }, (c) => c!);
      expect(same.changed).toBe(false);
      expect(same.object.metadata.resourceVersion).toBe(updated.object.metadata.resourceVersion);
      const left = await things.guaranteedUpdate({ namespace: 'ns', name: 'u' }, () => undefined);
      expect(left).toEqual({ object: updated.object, changed: false, created: false });
      await expectStorageError(
        things.guaranteedUpdate({ namespace: 'ns', name: 'absent' }, () => undefined, { ignoreNotFound: true }),
        'KeyNotFound',
      );
      const before = await store.currentResourceVersion();
      await expect(
        things.guaranteedUpdate({ namespace: 'ns', name: 'u' }, () => {
          throw new Error('precondition failed');
        }),
      ).rejects.toThrow('precondition failed');
      // A failed write allocates nothing: no gap, no event.
      expect(await store.currentResourceVersion()).toBe(before);
    });

    it('deletes with a precondition, keeps what it answers false for, and reports the deletion resourceVersion', async () => {
      const created = await things.create({ namespace: 'ns', name: 'd' }, object('d'));
      await expect(
        things.delete({ namespace: 'ns', name: 'd' }, () => {
          throw new Error('uid mismatch');
        }),
      ).rejects.toThrow('uid mismatch');
      expect(await things.delete({ namespace: 'ns', name: 'd' }, () => false)).toBeUndefined();
      expect((await things.get({ namespace: 'ns', name: 'd' })).metadata.resourceVersion).toBe(created.metadata.resourceVersion);
      const deleted = (await things.delete({ namespace: 'ns', name: 'd' }))!;
      expect(BigInt(deleted.metadata.resourceVersion) > BigInt(created.metadata.resourceVersion)).toBe(true);
      await expectStorageError(things.get({ namespace: 'ns', name: 'd' }), 'KeyNotFound');
    });

    it('lists by namespace and label selector at a consistent resourceVersion', async () => {
      const listed = store.forResource('listed.test', fieldsOf);
      await listed.create({ namespace: 'a', name: 'x' }, object('x', {}, { team: 'data' }));
      await listed.create({ namespace: 'b', name: 'y' }, object('y', {}, { team: 'web' }));
      await listed.create({ namespace: 'b', name: 'z' }, object('z'));
      const all = await listed.list(undefined, { predicate: {} });
      expect(all.items.map((o) => o.metadata.name)).toEqual(['x', 'y', 'z']);
      expect(all.resourceVersion).toBe(await store.currentResourceVersion());
      expect((await listed.list('b', { predicate: {} })).items.map((o) => o.metadata.name)).toEqual(['y', 'z']);
      const selected = await listed.list(undefined, { predicate: { labelSelector: parseLabelSelector('team in (data,ops)') } });
      expect(selected.items.map((o) => o.metadata.name)).toEqual(['x']);
      const notWeb = await listed.list(undefined, { predicate: { labelSelector: parseLabelSelector('team!=web') } });
      expect(notWeb.items.map((o) => o.metadata.name)).toEqual(['x', 'z']);
    });

    it('pages a list at one snapshot: writes between pages neither appear nor vanish', async () => {
      const paged = store.forResource('paged.test', fieldsOf);
      for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) await paged.create({ namespace: 'ns', name }, object(name, { spec: { v: 1 } }, { tier: 'gold' }));
      const first = await paged.list('ns', { predicate: {}, limit: 2, countRemaining: true });
      expect(first.items.map((o) => o.metadata.name)).toEqual(['a', 'b']);
      expect(first.continueAfter).toEqual({ namespace: 'ns', name: 'b' });
      expect(first.remainingItemCount).toBe(4);

      // Between the pages: change one not yet listed, delete two, recreate one, create a new one, relabel one.
      await paged.guaranteedUpdate({ namespace: 'ns', name: 'c' }, (o) => ({ ...o, spec: { v: 2 } }));
      await paged.delete({ namespace: 'ns', name: 'd' });
      await paged.delete({ namespace: 'ns', name: 'e' });
      await paged.create({ namespace: 'ns', name: 'e' }, object('e', { spec: { v: 'recreated' } }));
      await paged.create({ namespace: 'ns', name: 'cc' }, object('cc'));
      await paged.guaranteedUpdate({ namespace: 'ns', name: 'f' }, (o) => ({ ...o, metadata: { ...o!.metadata, labels: { tier: 'bronze' } } }));

      const second = await paged.list('ns', {
        predicate: {},
        limit: 3,
        after: first.continueAfter,
        resourceVersion: first.resourceVersion,
        countRemaining: true,
      });
      expect(second.resourceVersion).toBe(first.resourceVersion);
      expect(second.items.map((o) => [o.metadata.name, o.spec])).toEqual([
        ['c', { v: 1 }],
        ['d', { v: 1 }],
        ['e', { v: 1 }],
      ]);
      expect(second.items.map((o) => o.metadata.resourceVersion).every((rv) => BigInt(rv) <= BigInt(first.resourceVersion))).toBe(true);
      // A continued page is not counted again: the first page's count carries on (the registry's continue token).
      expect(second.remainingItemCount).toBeUndefined();
      const last = await paged.list('ns', { predicate: {}, limit: 3, after: second.continueAfter, resourceVersion: first.resourceVersion });
      expect(last.items.map((o) => o.metadata.name)).toEqual(['f']);
      expect(last.continueAfter).toBeUndefined();
      // Selectors see the snapshot's labels too.
      const gold = await paged.list('ns', { predicate: { labelSelector: parseLabelSelector('tier=gold') }, resourceVersion: first.resourceVersion });
      expect(gold.items.map((o) => o.metadata.name)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);

      const now = await paged.list('ns', { predicate: { labelSelector: parseLabelSelector('tier=gold') } });
      expect(now.items.map((o) => o.metadata.name)).toEqual(['a', 'b', 'c']);
    });

    it('refuses to list or watch at a compacted or a future resourceVersion', async () => {
      const bounded = store.forResource('bounded.test', fieldsOf);
      await bounded.create({ namespace: 'ns', name: 'x' }, object('x'));
      const old = await store.currentResourceVersion();
      await bounded.guaranteedUpdate({ namespace: 'ns', name: 'x' }, (o) => ({ ...o, spec: { v: 2 } }));
      const current = await store.currentResourceVersion();
      const future = (BigInt(current) + 1000n).toString();
      await expectStorageError(bounded.list(undefined, { predicate: {}, resourceVersion: future }), 'TooLarge');
      await expectStorageError(bounded.list(undefined, { predicate: {}, notOlderThan: future }), 'TooLarge');
      await expectStorageError(bounded.watch(undefined, future, {}), 'TooLarge');
      expect((await bounded.list(undefined, { predicate: {}, notOlderThan: old })).resourceVersion).toBe(current);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await store.compact(0);
      await expectStorageError(bounded.list(undefined, { predicate: {}, resourceVersion: old }), 'TooOld');
      await expectStorageError(bounded.watch(undefined, old, {}), 'TooOld');
    });

    it('bookmarks progress, including changes its selector filtered out', async () => {
      const marked = store.forResource('bookmarked.test', fieldsOf);
      const start = await store.currentResourceVersion();
      const watcher = await marked.watch(undefined, start, { labelSelector: parseLabelSelector('show=yes') }, { bookmarkIntervalMs: 50 });
      const hidden = await marked.create({ namespace: 'ns', name: 'hidden' }, object('hidden'));
      const timer = setTimeout(() => watcher.stop(), 10_000);
      let bookmarked: string | undefined;
      for await (const event of watcher) {
        expect(event.type).toBe('BOOKMARK');
        if (BigInt(event.resourceVersion) >= BigInt(hidden.metadata.resourceVersion)) {
          bookmarked = event.resourceVersion;
          break;
        }
      }
      clearTimeout(timer);
      watcher.stop();
      expect(bookmarked).toBeDefined();
    });

    it('delivers every change of 20 concurrent writers exactly once, in order, to two watchers', async () => {
      // A small cache makes the second watcher read part of the history from the database.
      const replica = await backend.openReplica?.({ watchCacheCapacity: 50 });
      const replicas = replica ? [store, replica] : [store];
      const resources = replicas.map((s) => s.forResource('concurrent.test', fieldsOf));
      const start = await store.currentResourceVersion();
      const writers = 20;
      const perWriter = 15;
      const watchers = [await resources[0].watch(undefined, start, {}), await resources.at(-1)!.watch(undefined, start, {})];
      const expected = writers * perWriter * 2;
      const collecting = watchers.map((w) => collect(w, expected));
      const acknowledged: string[] = [];
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          const storage = resources[w % resources.length];
          for (let i = 0; i < perWriter; i++) {
            const key = { namespace: `w${w}`, name: `o${i}` };
            acknowledged.push((await storage.create(key, object(key.name, { spec: { w, i } }))).metadata.resourceVersion);
            const updated = await storage.guaranteedUpdate(key, (c) => ({ ...c, spec: { w, i, done: true } }));
            acknowledged.push(updated.object.metadata.resourceVersion);
          }
        }),
      );
      const sortedAcks = [...acknowledged].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
      for (const events of await Promise.all(collecting)) {
        const rvs = events.map((e) => e.resourceVersion);
        expect(rvs).toEqual(sortedAcks);
        expect(new Set(rvs).size).toBe(expected);
        expect(events.filter((e) => e.type === 'ADDED')).toHaveLength(writers * perWriter);
        for (const e of events) expect(e.object.metadata.resourceVersion).toBe(e.resourceVersion);
      }
    });

    it('delivers the creates, updates and deletes of concurrent writers on every replica exactly once, in order, to a watcher on each', async () => {
      const replica = await backend.openReplica?.();
      const replicas = replica ? [store, replica] : [store];
      const resources = replicas.map((s) => s.forResource('churned.test', fieldsOf));
      const start = await store.currentResourceVersion();
      const writers = 16;
      const perWriter = 8;
      const watchers = await Promise.all(resources.map((r) => r.watch(undefined, start, {})));
      const expected = writers * perWriter * 3;
      const collecting = watchers.map((w) => collect(w, expected));
      const acknowledged: [string, string, string][] = [];
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          const storage = resources[w % resources.length];
          for (let i = 0; i < perWriter; i++) {
            const key = { namespace: 'ns', name: `w${w}-o${i}` };
            const created = await storage.create(key, object(key.name, { spec: { w, i } }));
            acknowledged.push([created.metadata.resourceVersion, 'ADDED', key.name]);
            const updated = await storage.guaranteedUpdate(key, (c) => ({ ...c, spec: { w, i, updated: true } }));
            acknowledged.push([updated.object.metadata.resourceVersion, 'MODIFIED', key.name]);
            const deleted = (await storage.delete(key))!;
            acknowledged.push([deleted.metadata.resourceVersion, 'DELETED', key.name]);
          }
        }),
      );
      const inOrder = [...acknowledged].sort(([a], [b]) => (BigInt(a) < BigInt(b) ? -1 : 1));
      for (const events of await Promise.all(collecting)) {
        expect(events.map((e) => [e.resourceVersion, e.type, e.object.metadata.name])).toEqual(inOrder);
        for (const e of events) expect(e.object.metadata.resourceVersion).toBe(e.resourceVersion);
      }
      for (const storage of resources) expect((await storage.list(undefined, { predicate: {} })).items).toEqual([]);
    });

    it('turns label changes into ADDED and DELETED for a selecting watcher', async () => {
      const selected = store.forResource('selected.test', fieldsOf);
      const start = await store.currentResourceVersion();
      const watcher = await selected.watch('ns', start, { labelSelector: parseLabelSelector('tier=gold') });
      const events = collect(watcher, 3);
      await selected.create({ namespace: 'ns', name: 's' }, object('s', {}, { tier: 'silver' }));
      await selected.guaranteedUpdate({ namespace: 'ns', name: 's' }, (c) => ({ ...c, metadata: { ...c!.metadata, labels: { tier: 'gold' } } }));
      await selected.guaranteedUpdate({ namespace: 'ns', name: 's' }, (c) => ({ ...c, spec: { touched: true } }));
      await selected.guaranteedUpdate({ namespace: 'ns', name: 's' }, (c) => ({ ...c, metadata: { ...c!.metadata, labels: { tier: 'bronze' } } }));
      await selected.create({ namespace: 'other', name: 's' }, object('s', {}, { tier: 'gold' }));
      expect((await events).map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    });

    it('sends an object leaving a label or field selection as DELETED in the state it was selected in, at the change’s resourceVersion (kube’s cacher)', async () => {
      const phaseOf = (o: KubeObject) => ({ ...fieldsOf(o), 'spec.phase': String((o.spec as { phase?: string } | undefined)?.phase ?? '') });
      // Another replica reads the log's rows instead of its own writes' events.
      const replica = await backend.openReplica?.();
      const resources = [store, ...(replica ? [replica] : [])].map((s) => s.forResource('leaving.test', phaseOf));
      const [leaving] = resources;
      const start = await store.currentResourceVersion();
      const byLabel = await Promise.all(resources.map((r) => r.watch('ns', start, { labelSelector: parseLabelSelector('tier=gold') })));
      const byField = await Promise.all(resources.map((r) => r.watch('ns', start, { fieldSelector: parseFieldSelector('spec.phase=Running') })));
      const labelEvents = byLabel.map((w) => collect(w, 2));
      const fieldEvents = byField.map((w) => collect(w, 3));
      const created = await leaving.create({ namespace: 'ns', name: 'l' }, object('l', { spec: { phase: 'Running' } }, { tier: 'gold' }));
      const relabelled = await leaving.guaranteedUpdate({ namespace: 'ns', name: 'l' }, (c) => ({
        ...c,
        metadata: { ...c!.metadata, labels: { tier: 'bronze' } },
      }));
      const finished = await leaving.guaranteedUpdate({ namespace: 'ns', name: 'l' }, (c) => ({ ...c, spec: { phase: 'Done' } }));
      const seen = (e: StorageObjectEvent) => [e.type, e.resourceVersion, e.object.metadata.resourceVersion, e.object.metadata.labels, e.object.spec];
      const rv = (o: { metadata: { resourceVersion: string } }) => o.metadata.resourceVersion;
      for (const events of await Promise.all(labelEvents)) {
        expect(events.map(seen)).toEqual([
          ['ADDED', rv(created), rv(created), { tier: 'gold' }, { phase: 'Running' }],
          ['DELETED', rv(relabelled.object), rv(relabelled.object), { tier: 'gold' }, { phase: 'Running' }],
        ]);
        expect(Object.isFrozen(events[1].object.metadata)).toBe(true);
      }
      for (const events of await Promise.all(fieldEvents)) {
        expect(events.map(seen)).toEqual([
          ['ADDED', rv(created), rv(created), { tier: 'gold' }, { phase: 'Running' }],
          ['MODIFIED', rv(relabelled.object), rv(relabelled.object), { tier: 'bronze' }, { phase: 'Running' }],
          ['DELETED', rv(finished.object), rv(finished.object), { tier: 'bronze' }, { phase: 'Running' }],
        ]);
      }
      // A replica opened after the changes reads them from the log's rows (readEvents) and sends the same.
      const later = ((await backend.openReplica?.()) ?? store).forResource('leaving.test', phaseOf);
      const late = await collect(await later.watch('ns', rv(created), { labelSelector: parseLabelSelector('tier=gold') }), 1);
      expect(late.map(seen)).toEqual([['DELETED', rv(relabelled.object), rv(relabelled.object), { tier: 'gold' }, { phase: 'Running' }]]);
    });

    it('takes an object whose update drops an ownerReference out of that owner’s metadata.ownerReferences.uid selection: lists and watches', async () => {
      const withOwners = (o: KubeObject) => ({ ...fieldsOf(o), ...metadataFields(o) });
      const owned = store.forResource('owned.test', withOwners);
      const ref = (uid: string) => ({ apiVersion: 'test/v1', kind: 'Owner', name: uid, uid });
      const byOwner = (uid: string) => ({ fieldSelector: parseFieldSelector(`metadata.ownerReferences.uid=${uid}`) });
      const names = async (predicate: ReturnType<typeof byOwner>) => (await owned.list('ns', { predicate })).items.map((o) => o.metadata.name);
      const start = await store.currentResourceVersion();
      const watcher = await owned.watch('ns', start, byOwner('u1'));
      const events = collect(watcher, 2);
      await owned.create(key('o'), object('o', { metadata: { name: 'o', namespace: 'ns', uid: 'uid-o', ownerReferences: [ref('u1'), ref('u2')] } }));
      await owned.create(key('p'), object('p', { metadata: { name: 'p', namespace: 'ns', uid: 'uid-p', ownerReferences: [ref('u2')] } }));
      expect(await names(byOwner('u1'))).toEqual(['o']);
      const setOwners = (uids: string[]) => (c: KubeObject | undefined) => ({ ...c!, metadata: { ...c!.metadata, ownerReferences: uids.map(ref) } });
      const dropped = await owned.guaranteedUpdate(key('o'), setOwners(['u2']));
      expect(await names(byOwner('u1'))).toEqual([]);
      expect(await names(byOwner('u2'))).toEqual(['o', 'p']);
      await owned.guaranteedUpdate(key('o'), (c) => ({ ...c!, metadata: { ...c!.metadata, ownerReferences: undefined } }));
      expect(await names(byOwner('u2'))).toEqual(['p']);
      expect(await names({ fieldSelector: parseFieldSelector('metadata.ownerReferences.uid!=') })).toEqual(['p']);
      // The watcher of u1's dependents sees o leave when its reference to u1 goes.
      expect((await events).map((e) => [e.type, e.object.metadata.name, e.resourceVersion])).toEqual([
        ['ADDED', 'o', expect.any(String)],
        ['DELETED', 'o', dropped.object.metadata.resourceVersion],
      ]);
    });

    it('answers a watch from before the retention window with TooOld, and resumes inside it after a restart', async () => {
      const compacting = store.forResource('compacted.test', fieldsOf);
      const old = await store.currentResourceVersion();
      await compacting.create({ namespace: 'ns', name: 'c1' }, object('c1'));
      const inside = await store.currentResourceVersion();
      await compacting.create({ namespace: 'ns', name: 'c2' }, object('c2'));

      if (backend.openReplica) {
        // A restart: a new store on the same database resumes from a resourceVersion in the window.
        const restarted = (await backend.openReplica()).forResource('compacted.test', fieldsOf);
        const resumed = await collect(await restarted.watch(undefined, inside, {}), 1);
        expect(resumed.map((e) => e.object.metadata.name)).toEqual(['c2']);
      }

      await new Promise((resolve) => setTimeout(resolve, 20));
      const { compacted } = await store.compact(0);
      expect(BigInt(compacted) >= BigInt(inside)).toBe(true);
      await expectStorageError(compacting.watch(undefined, old, {}), 'TooOld');
      const fresh = await compacting.watch(undefined, compacted, {});
      const next = collect(fresh, 1);
      await compacting.create({ namespace: 'ns', name: 'c3' }, object('c3'));
      expect((await next).map((e) => e.object.metadata.name)).toEqual(['c3']);
    });

    it('hands out frozen objects from the watch cache', async () => {
      const frozen = store.forResource('frozen.test', fieldsOf);
      const watcher = await frozen.watch(undefined, await store.currentResourceVersion(), {});
      const events = collect(watcher, 1);
      await frozen.create({ namespace: 'ns', name: 'f' }, object('f'));
      const [event] = await events;
      expect(Object.isFrozen(event.object.metadata)).toBe(true);
    });

    optimisticConcurrencyTests(() => backend);
    readTests(() => backend);
    historyTests(() => backend);
  });
}
