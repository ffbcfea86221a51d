/**
 * Group commit, on both SQL backends: concurrent writes share batches (one round trip
 * each, counted), and what one write of a batch does wrong fails that write only.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/database.js';
import { noStorageMetrics, type StorageRecorder } from '../../src/storage/metrics.js';
import type { ObjectStore, ResourceStorage, StorageKey } from '../../src/storage/interfaces.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { splitObjectText } from '../../src/storage/object-text.js';
import { readBatchOutcome, runWriteBatch, type BatchedWrite } from '../../src/storage/write-batch-statement.js';
import { CountingDatabase } from './counting-database.js';
import { collect, expectStorageError, fieldsOf, Gate, key, object, within } from './conformance-support.js';

/** A function whose first `parties` calls all resolve once the last of them is made. */
function barrier(parties: number): () => Promise<void> {
  const all = Promise.withResolvers<void>();
  let arrived = 0;
  return () => {
    if (++arrived === parties) all.resolve();
    return all.promise;
  };
}

/** Where {@link batchesDuring} collects the sizes the store records. */
let recorded: number[] | undefined;
const metrics: StorageRecorder = { ...noStorageMetrics, writeBatch: (size) => recorded?.push(size) };

/** The sizes of the write batches committed while `work` runs. */
async function batchesDuring(work: () => Promise<unknown>): Promise<number[]> {
  const sizes: number[] = [];
  recorded = sizes;
  try {
    await work();
  } finally {
    recorded = undefined;
  }
  return sizes;
}

/** The database the PostgreSQL store opened: a notification reaches the listeners of its own database only. */
let postgresUrl = '';
const opens: Record<string, () => Promise<Database>> = {
  pglite: () => PGliteDatabase.open(),
  postgres: async () => new PostgresDatabase({ connectionString: (postgresUrl = await testDatabaseUrl()) }),
};

describe.each(Object.keys(opens))('write batches on %s', (backend) => {
  let database: CountingDatabase;
  let store: ObjectStore & { close(): Promise<void> };

  beforeAll(async () => {
    const inner = await opens[backend]();
    await migrateToLatest(inner);
    database = new CountingDatabase(inner);
    store = await SqlObjectStore.open(database, { metrics });
  });

  afterAll(async () => {
    await store?.close();
    await database?.close();
  });

  const watchFromNow = async (storage: ResourceStorage) => storage.watch(undefined, await store.currentResourceVersion(), {});

  it('commits 64 concurrent creates, updates and deletes in a few round trips, each write once, in order', async () => {
    const batched = store.forResource('batched.test', fieldsOf);
    const keys = Array.from({ length: 64 }, (_, i) => key(`b${i}`));
    const events = collect(await watchFromNow(batched), 64 * 3);
    // Updates and deletes read before they write, and those reads finish one by one: each
    // waits at a barrier until all 64 have read, so the writes arrive together, as creates do.
    const verbs: [string, (k: StorageKey, allRead: () => Promise<void>) => Promise<unknown>][] = [
      ['create', (k) => batched.create(k, object(k.name))],
      ['update', (k, allRead) => batched.guaranteedUpdate(k, async (c) => (await allRead(), { ...c, spec: { updated: true } }))],
      ['delete', (k, allRead) => batched.delete(k, allRead)],
    ];
    for (const [verb, write] of verbs) {
      const before = database.writeRoundTrips;
      const allRead = barrier(keys.length);
      const sizes = await batchesDuring(() => Promise.all(keys.map((k) => write(k, allRead))));
      expect(
        sizes.reduce((a, b) => a + b, 0),
        verb,
      ).toBe(64);
      // 64 writes at once: the first batch goes alone at most, the rest queue behind it.
      expect(sizes.length, `${verb}: batches ${JSON.stringify(sizes)}`).toBeLessThanOrEqual(4);
      expect(database.writeRoundTrips - before, verb).toBe(sizes.length);
    }
    const received = await events;
    expect(received.map((e) => e.type)).toEqual([...keys.map(() => 'ADDED'), ...keys.map(() => 'MODIFIED'), ...keys.map(() => 'DELETED')]);
    const rvs = received.map((e) => BigInt(e.resourceVersion));
    for (let i = 1; i < rvs.length; i++) expect(rvs[i] > rvs[i - 1]).toBe(true);
  });

  it('fails only the write whose condition failed: a duplicate create gets KeyExists, a stale update runs again, the rest of the batch commits', async () => {
    const mixed = store.forResource('mixed.test', fieldsOf);
    await mixed.create(key('taken'), object('taken', { spec: { first: true } }));
    await mixed.create(key('raced'), object('raced', { spec: { n: 0 } }));
    const events = collect(await watchFromNow(mixed), 4);
    const webhook = new Gate();
    const seen: string[] = [];
    const updating = mixed.guaranteedUpdate(key('raced'), async (current) => {
      seen.push(current!.metadata.resourceVersion);
      if (seen.length === 1) await webhook.pass();
      return { ...current, spec: { n: (current!.spec as { n: number }).n + 10 } };
    });
    await within('tryUpdate', webhook.reached);
    const theirs = await mixed.guaranteedUpdate(key('raced'), (c) => ({ ...c, spec: { n: 1 } }));
    // Released in the same turn as the writes below: the stale update, the duplicate and two creates share one batch.
    let duplicate: Promise<unknown> | undefined;
    const sizes = await batchesDuring(async () => {
      webhook.release();
      duplicate = mixed.create(key('taken'), object('taken', { spec: { second: true } }));
      await Promise.all([updating, duplicate.catch(() => undefined), mixed.create(key('new-1'), object('new-1')), mixed.create(key('new-2'), object('new-2'))]);
    });
    expect(sizes[0]).toBe(4);
    await expectStorageError(duplicate!, 'KeyExists');
    expect(seen).toEqual([seen[0], theirs.object.metadata.resourceVersion]);
    const updated = await updating;
    expect(updated.object.spec).toEqual({ n: 11 });
    expect((await mixed.get(key('taken'))).spec).toEqual({ first: true });
    expect((await events).map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['MODIFIED', 'raced'],
      ['ADDED', 'new-1'],
      ['ADDED', 'new-2'],
      ['MODIFIED', 'raced'],
    ]);
  });

  // PostgreSQL alone: PGlite is one process, with nobody to wake.
  if (backend === 'postgres')
    it('wakes the other replicas with the commit of each batch that wrote, in its own statement, with no NOTIFY round trip after it', async () => {
      const woken = store.forResource('woken.test', fieldsOf);
      const notifiesBefore = database.notifies;
      await woken.create(key('w'), object('w'));
      await woken.delete(key('w'));
      expect(database.notifies).toBe(notifiesBefore);
      // What each statement sends, told apart by payload: notifications arrive in commit order.
      const listener = new pg.Client({ connectionString: postgresUrl });
      await listener.connect();
      try {
        const heard: string[] = [];
        const deleteHeard = Promise.withResolvers<void>();
        listener.on('notification', (n) => {
          heard.push(n.payload ?? '');
          if (n.payload === 'deleted') deleteHeard.resolve();
        });
        await listener.query('LISTEN woken_test');
        const write = (op: 'create' | 'delete', expected?: string): BatchedWrite => ({
          op,
          resource: 'woken.test',
          namespace: 'ns',
          name: 'direct',
          uid: 'uid-direct',
          apiVersion: 'test/v1',
          labels: '{}',
          fields: '{}',
          object: splitObjectText({
            apiVersion: 'test/v1',
            kind: 'Thing',
            metadata: { name: 'direct', namespace: 'ns', uid: 'uid-direct', resourceVersion: '' },
          }),
          ...(expected !== undefined && { expected }),
        });
        const run = async (payload: string, w: BatchedWrite) =>
          readBatchOutcome(await runWriteBatch(database, [w], { channel: 'woken_test', payload }), 1).resourceVersions[0];
        const created = await run('created', write('create'));
        expect(created).toBeDefined();
        // The same create again is refused by its condition: nothing committed, nobody woken.
        expect(await run('refused', write('create'))).toBeUndefined();
        // A batch with a delete runs as a script of statements: its last one wakes them.
        expect(await run('deleted', write('delete', created!.toString()))).toBeDefined();
        await within("the delete's notification", deleteHeard.promise);
        expect(heard).toEqual(['created', 'deleted']);
      } finally {
        await listener.end();
      }
    });

  it('runs each write of a batch the database refused alone, so only the write it cannot store fails', async () => {
    const refused = store.forResource('refused.test', fieldsOf);
    const events = collect(await watchFromNow(refused), 2);
    const writes = [
      refused.create(key('good-1'), object('good-1')),
      // A lone surrogate is valid in a JavaScript string, not in jsonb (the labels' column; the object's is text).
      refused.create(key('bad'), object('bad', {}, { text: '\ud800' })),
      refused.create(key('good-2'), object('good-2')),
    ];
    const [first, bad, second] = await Promise.allSettled(writes);
    expect(first.status).toBe('fulfilled');
    expect(second.status).toBe('fulfilled');
    expect(bad.status).toBe('rejected');
    await expectStorageError(refused.get(key('bad')), 'KeyNotFound');
    expect((await events).map((e) => e.object.metadata.name)).toEqual(['good-1', 'good-2']);
    expect((await refused.list(undefined, { predicate: {} })).items.map((o) => o.metadata.name)).toEqual(['good-1', 'good-2']);
  });
});
