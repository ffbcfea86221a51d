/**
 * The conformance tests of optimistic writes, as etcd3's GuaranteedUpdate does them:
 * an update function or a delete precondition (where admission webhooks run) holds no
 * lock, no transaction, no connection and no turn of PGlite's queue, and a write that
 * lost a race runs again on the newer object.
 */
import { expect, it } from 'vitest';
import type { KubeObject, StoredObject } from '../../src/machinery/meta/object.js';
import type { ResourceStorage, StorageObjectEvent, StorageWatcher } from '../../src/storage/interfaces.js';
import { collect, expectStorageError, fieldsOf, Gate, key, object, within, type StorageBackend } from './conformance-support.js';

/** `current` with `changes` merged into its spec. */
function withSpec(current: KubeObject | undefined, changes: Record<string, unknown>): KubeObject {
  return { ...current, spec: { ...(current?.spec as object | undefined), ...changes } };
}

/** A watcher of every change to `storage` from now on. */
async function watchFromNow(backend: StorageBackend, storage: ResourceStorage): Promise<StorageWatcher> {
  return storage.watch(undefined, await backend.store.currentResourceVersion(), {});
}

/** Where the backend can tell, expects no session of its database to sit inside a transaction. */
async function expectNoOpenTransaction(backend: StorageBackend): Promise<void> {
  if (backend.idleInTransaction) expect(await backend.idleInTransaction()).toBe(0);
}

const summary = (events: readonly StorageObjectEvent[]) => events.map((e) => [e.type, e.object.spec]);

/** Defines the tests in the current suite, on the backend `backend()` returns once the suite has opened it. */
export function optimisticConcurrencyTests(backend: () => StorageBackend): void {
  it('runs tryUpdate holding nothing: while it waits, other writes commit and no transaction stays open', async () => {
    // On one connection a tryUpdate that held it, or PGlite's queue, would stop every other write.
    const store = (await backend().openReplica?.({ maxConnections: 1 })) ?? backend().store;
    const blocked = store.forResource('blocked.test', fieldsOf);
    await blocked.create(key('slow'), object('slow', { spec: { n: 0 } }));
    await blocked.create(key('other'), object('other', { spec: { n: 0 } }));
    const webhook = new Gate();
    const updating = blocked.guaranteedUpdate(key('slow'), async (current) => {
      await webhook.pass();
      return withSpec(current, { n: 1 });
    });
    let other;
    try {
      await within('tryUpdate', webhook.reached);
      await expectNoOpenTransaction(backend());
      other = await within(
        'an update of another object',
        blocked.guaranteedUpdate(key('other'), (c) => withSpec(c, { n: 1 })),
      );
      await within('a create', blocked.create(key('new'), object('new')));
      await within('a delete', blocked.delete(key('new')));
      await within('a read', blocked.get(key('slow')));
    } finally {
      webhook.release();
    }
    const updated = await updating;
    expect(updated).toMatchObject({ changed: true, created: false, object: { spec: { n: 1 } } });
    expect(BigInt(updated.object.metadata.resourceVersion) > BigInt(other.object.metadata.resourceVersion)).toBe(true);
    expect(await blocked.get(key('slow'))).toEqual(updated.object);
  });

  it('runs tryUpdate again on the newer object when the same object changed while it ran, keeping both changes', async () => {
    const raced = backend().store.forResource('raced.test', fieldsOf);
    const created = await raced.create(key('r'), object('r', { spec: { a: 0 } }));
    const events = collect(await watchFromNow(backend(), raced), 2);
    const webhook = new Gate();
    const seen: StoredObject[] = [];
    const updating = raced.guaranteedUpdate(key('r'), async (current) => {
      seen.push(current!);
      if (seen.length === 1) await webhook.pass();
      return withSpec(current, { mine: true });
    });
    let theirs;
    try {
      await within('tryUpdate', webhook.reached);
      theirs = await within(
        'an update of the same object',
        raced.guaranteedUpdate(key('r'), (c) => withSpec(c, { theirs: true })),
      );
    } finally {
      webhook.release();
    }
    const mine = await updating;
    expect(seen.map((o) => [o.metadata.resourceVersion, o.spec])).toEqual([
      [created.metadata.resourceVersion, { a: 0 }],
      [theirs.object.metadata.resourceVersion, { a: 0, theirs: true }],
    ]);
    expect(mine).toMatchObject({ changed: true, created: false, object: { spec: { a: 0, theirs: true, mine: true } } });
    expect(await raced.get(key('r'))).toEqual(mine.object);
    // The lost attempt left no trace: one event per committed write, in order.
    expect(summary(await events)).toEqual([
      ['MODIFIED', { a: 0, theirs: true }],
      ['MODIFIED', { a: 0, theirs: true, mine: true }],
    ]);
  });

  it('loses no update when 20 writers change one object at once, on every replica', async () => {
    const replica = await backend().openReplica?.();
    const stores = replica ? [backend().store, replica] : [backend().store];
    const [counted, other] = stores.map((s) => s.forResource('counted.test', fieldsOf));
    await counted.create(key('c'), object('c', { spec: { count: 0, writers: [] } }));
    const events = collect(await watchFromNow(backend(), counted), 20);
    const writers = Array.from({ length: 20 }, (_, w) => (w % 2 === 0 ? counted : (other ?? counted)));
    const results = await Promise.all(
      writers.map((storage, w) =>
        storage.guaranteedUpdate(key('c'), async (current) => {
          // A pause as a webhook's lets the other writers' reads overlap this one.
          await new Promise((resolve) => setTimeout(resolve, 1));
          const spec = current!.spec as { count: number; writers: number[] };
          return { ...current, spec: { count: spec.count + 1, writers: [...spec.writers, w] } };
        }),
      ),
    );
    const final = await counted.get(key('c'));
    expect(final.spec).toMatchObject({ count: 20 });
    expect([...(final.spec as { writers: number[] }).writers].sort((a, b) => a - b)).toEqual(writers.map((_, w) => w));
    const received = await events;
    expect(received.map((e) => (e.object.spec as { count: number }).count)).toEqual(writers.map((_, w) => w + 1));
    expect(received.map((e) => e.resourceVersion).sort()).toEqual(results.map((r) => r.object.metadata.resourceVersion).sort());
  });

  it('with ignoreNotFound, creates what tryUpdate makes of no object, and updates an object that exists', async () => {
    const upserted = backend().store.forResource('upserted.test', fieldsOf);
    let calls = 0;
    await expectStorageError(
      upserted.guaranteedUpdate(key('u'), (c) => {
        calls++;
        return c!;
      }),
      'KeyNotFound',
    );
    expect(calls).toBe(0);
    const events = collect(await watchFromNow(backend(), upserted), 2);
    const seen: (StoredObject | undefined)[] = [];
    const upsert = () =>
      upserted.guaranteedUpdate(
        key('u'),
        (current) => {
          seen.push(current);
          return current ? withSpec(current, { n: 2 }) : object('u', { spec: { n: 1 } });
        },
        { ignoreNotFound: true },
      );
    const created = await upsert();
    expect(created).toMatchObject({ changed: true, created: true, object: { spec: { n: 1 } } });
    expect(await upserted.get(key('u'))).toEqual(created.object);
    const updated = await upsert();
    expect(updated).toMatchObject({ changed: true, created: false, object: { spec: { n: 2 } } });
    expect(seen).toEqual([undefined, created.object]);
    expect(summary(await events)).toEqual([
      ['ADDED', { n: 1 }],
      ['MODIFIED', { n: 2 }],
    ]);
  });

  it('with ignoreNotFound, creates the object when it is deleted while tryUpdate runs', async () => {
    const recreated = backend().store.forResource('recreated.test', fieldsOf);
    await recreated.create(key('x'), object('x', { spec: { from: 'first' } }));
    const events = collect(await watchFromNow(backend(), recreated), 2);
    const webhook = new Gate();
    const seen: (StoredObject | undefined)[] = [];
    const updating = recreated.guaranteedUpdate(
      key('x'),
      async (current) => {
        seen.push(current);
        if (seen.length === 1) await webhook.pass();
        return object('x', { spec: { from: current ? 'update' : 'create' } });
      },
      { ignoreNotFound: true },
    );
    try {
      await within('tryUpdate', webhook.reached);
      await within('a delete', recreated.delete(key('x')));
    } finally {
      webhook.release();
    }
    const result = await updating;
    expect(seen.map((o) => o?.spec)).toEqual([{ from: 'first' }, undefined]);
    expect(result).toMatchObject({ changed: true, created: true, object: { spec: { from: 'create' } } });
    expect(summary(await events)).toEqual([
      ['DELETED', { from: 'first' }],
      ['ADDED', { from: 'create' }],
    ]);
  });

  it('with ignoreNotFound, updates the object another write creates while tryUpdate runs', async () => {
    const contended = backend().store.forResource('contended.test', fieldsOf);
    const events = collect(await watchFromNow(backend(), contended), 2);
    const webhook = new Gate();
    const seen: (StoredObject | undefined)[] = [];
    const updating = contended.guaranteedUpdate(
      key('y'),
      async (current) => {
        seen.push(current);
        if (seen.length === 1) await webhook.pass();
        return withSpec(current ?? object('y'), { mine: true });
      },
      { ignoreNotFound: true },
    );
    let theirs;
    try {
      await within('tryUpdate', webhook.reached);
      theirs = await within('a create', contended.create(key('y'), object('y', { spec: { theirs: true } })));
    } finally {
      webhook.release();
    }
    const result = await updating;
    expect(seen).toEqual([undefined, theirs]);
    expect(result).toMatchObject({ changed: true, created: false, object: { spec: { theirs: true, mine: true } } });
    expect(summary(await events)).toEqual([
      ['ADDED', { theirs: true }],
      ['MODIFIED', { theirs: true, mine: true }],
    ]);
  });

  it('without ignoreNotFound, fails with KeyNotFound when the object is deleted while tryUpdate runs', async () => {
    const vanished = backend().store.forResource('vanished.test', fieldsOf);
    await vanished.create(key('v'), object('v'));
    const webhook = new Gate();
    let calls = 0;
    const updating = vanished.guaranteedUpdate(key('v'), async (current) => {
      calls++;
      await webhook.pass();
      return withSpec(current, { late: true });
    });
    try {
      await within('tryUpdate', webhook.reached);
      await within('a delete', vanished.delete(key('v')));
    } finally {
      webhook.release();
    }
    await expectStorageError(updating, 'KeyNotFound');
    expect(calls).toBe(1);
    await expectStorageError(vanished.get(key('v')), 'KeyNotFound');
  });

  it('deletes optimistically: a slow precondition holds nothing, and sees the newer object when it changed meanwhile', async () => {
    const store = (await backend().openReplica?.({ maxConnections: 1 })) ?? backend().store;
    const removed = store.forResource('removed.test', fieldsOf);
    await removed.create(key('d'), object('d', { spec: { v: 1 } }));
    const webhook = new Gate();
    const seen: StoredObject[] = [];
    const deleting = removed.delete(key('d'), async (current) => {
      seen.push(current);
      if (seen.length === 1) await webhook.pass();
    });
    let changed;
    try {
      await within('the precondition', webhook.reached);
      await expectNoOpenTransaction(backend());
      changed = await within(
        'an update of the same object',
        removed.guaranteedUpdate(key('d'), (c) => withSpec(c, { v: 2 })),
      );
      await within('a create', removed.create(key('e'), object('e')));
    } finally {
      webhook.release();
    }
    const deleted = (await deleting)!;
    expect(seen.map((o) => o.spec)).toEqual([{ v: 1 }, { v: 2 }]);
    expect(deleted.spec).toEqual({ v: 2 });
    expect(BigInt(deleted.metadata.resourceVersion) > BigInt(changed.object.metadata.resourceVersion)).toBe(true);
    await expectStorageError(removed.get(key('d')), 'KeyNotFound');
  });
}
