/**
 * Reads served from the object cache, on both SQL backends: they see every write
 * acknowledged before them (read-your-writes, also across replicas), what they return
 * is exactly the database's state at the resourceVersion they report, the first load
 * is stitched with writes committed around its snapshot without a loss or a double,
 * selectors select what SQL selects, and resourceVersion=0 reads touch no database.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject, StoredObject } from '../../src/machinery/meta/object.js';
import { parseFieldSelector } from '../../src/machinery/selectors/field-selector.js';
import { parseLabelSelector } from '../../src/machinery/selectors/label-selector.js';
import type { Database } from '../../src/storage/database.js';
import type { ListResult, ResourceStorage, SelectionPredicate } from '../../src/storage/interfaces.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { expectStorageError, key, object } from './conformance-support.js';
import { CountingDatabase } from './counting-database.js';

/** Selectable fields of the test resources. */
const fieldsOf = (o: KubeObject) => ({
  'metadata.name': String(o.metadata?.name ?? ''),
  'metadata.namespace': String(o.metadata?.namespace ?? ''),
  'spec.color': (o.spec as { color?: string } | undefined)?.color ?? '',
});

/** A list as compared: each item's namespace, name, resourceVersion and spec. */
const summary = (list: ListResult) => list.items.map((o) => [o.metadata.namespace, o.metadata.name, o.metadata.resourceVersion, o.spec]);

/** The database's state at exactly `resourceVersion` (an Exact list is always the database's). */
const databaseAt = (storage: ResourceStorage, namespace: string | undefined, resourceVersion: string, predicate: SelectionPredicate = {}) =>
  storage.list(namespace, { predicate, resourceVersion });

/** Expects `list`, served from the cache, to be exactly the database's state at its resourceVersion. */
async function expectDatabaseState(storage: ResourceStorage, namespace: string | undefined, list: ListResult, predicate: SelectionPredicate = {}) {
  expect(summary(list)).toEqual(summary(await databaseAt(storage, namespace, list.resourceVersion, predicate)));
}

/** A random write among `names`: create when absent, else update or delete; ignores the races it loses. */
async function randomWrite(storage: ResourceStorage, names: readonly string[], n: number): Promise<bigint | undefined> {
  const name = names[Math.floor(Math.random() * names.length)];
  try {
    if (Math.random() < 0.2) return BigInt((await storage.delete(key(name)))!.metadata.resourceVersion);
    const result = await storage.guaranteedUpdate(key(name), (current) => (current ? { ...current, spec: { n } } : object(name, { spec: { n } })), {
      ignoreNotFound: true,
    });
    return BigInt(result.object.metadata.resourceVersion);
  } catch (error) {
    if (error instanceof StorageError && error.code === 'KeyNotFound') return undefined;
    throw error;
  }
}

const maxOf = (rvs: readonly (bigint | undefined)[]) => rvs.reduce<bigint>((a, b) => (b !== undefined && b > a ? b : a), 0n);

describe.each(['pglite', 'postgres'] as const)('reads from the object cache on %s', (backend) => {
  let database: CountingDatabase;
  let store: SqlObjectStore;
  /** A second replica on the same database (PostgreSQL only). */
  let replica: { database: Database; store: SqlObjectStore } | undefined;
  // No safety poll during a test: a query counted must be the read's.
  const options = { safetyPollMs: 3_600_000 };

  beforeAll(async () => {
    const url = backend === 'postgres' ? await testDatabaseUrl() : undefined;
    const inner = url ? new PostgresDatabase({ connectionString: url }) : await PGliteDatabase.open();
    await migrateToLatest(inner);
    database = new CountingDatabase(inner);
    store = await SqlObjectStore.open(database, options);
    if (url) {
      const other = new PostgresDatabase({ connectionString: url });
      replica = { database: other, store: await SqlObjectStore.open(other, options) };
    }
  });

  afterAll(async () => {
    await replica?.store.close();
    await replica?.database.close();
    await store?.close();
    await database?.close();
  });

  it('serves resourceVersion=0 lists and gets, and consistent ones, without a query of the objects', async () => {
    const zero = store.forResource('zero.test', fieldsOf);
    for (const name of ['b', 'a', 'c']) await zero.create(key(name), object(name, { spec: { color: name } }));
    // The first read loads the objects.
    await zero.list('ns', { predicate: {}, notOlderThan: '0' });
    database.objectStatements = 0;
    const listed = await zero.list('ns', { predicate: {}, notOlderThan: '0', limit: 1 });
    const got = await zero.get(key('a'), { resourceVersion: '0' });
    const consistent = await zero.list('ns', { predicate: { fieldSelector: parseFieldSelector('spec.color!=b') } });
    const consistentGet = await zero.get(key('c'));
    await expectStorageError(zero.get(key('missing')), 'KeyNotFound');
    expect(database.objectStatements).toBe(0);
    // resourceVersion=0 ignores the limit, as kube's cacher does.
    expect(listed.items.map((o) => o.metadata.name)).toEqual(['a', 'b', 'c']);
    expect(listed.continueAfter).toBeUndefined();
    expect(consistent.items.map((o) => o.metadata.name)).toEqual(['a', 'c']);
    expect([got.spec, consistentGet.spec]).toEqual([{ color: 'a' }, { color: 'c' }]);
    // Shared frozen instances: a reader cannot change what the next one reads.
    expect(Object.isFrozen(got) && Object.isFrozen(got.metadata)).toBe(true);
    expect(await zero.get(key('a'), { resourceVersion: '0' })).toBe(got);
  });

  it('returns the writer’s own write to a consistent read as soon as it was acknowledged', async () => {
    const own = store.forResource('own.test', fieldsOf);
    await own.list('ns', { predicate: {} });
    for (let i = 0; i < 40; i++) {
      const name = `w${i % 4}`;
      const written =
        i < 4
          ? await own.create(key(name), object(name, { spec: { i } }))
          : (await own.guaranteedUpdate(key(name), (current) => ({ ...current!, spec: { i } }))).object;
      expect(await own.get(key(name))).toEqual(written);
      const listed = await own.list('ns', { predicate: {} });
      expect(BigInt(listed.resourceVersion)).toBeGreaterThanOrEqual(BigInt(written.metadata.resourceVersion));
      expect(listed.items.find((o) => o.metadata.name === name)).toEqual(written);
    }
    const deleted = (await own.delete(key('w0')))!;
    await expectStorageError(own.get(key('w0')), 'KeyNotFound');
    expect(BigInt((await own.list('ns', { predicate: {} })).resourceVersion)).toBeGreaterThanOrEqual(BigInt(deleted.metadata.resourceVersion));
  });

  it('fails a read not older than a resourceVersion the database has not reached', async () => {
    const future = store.forResource('future.test', fieldsOf);
    await future.create(key('x'), object('x'));
    await future.list('ns', { predicate: {} });
    const ahead = (BigInt(await store.currentResourceVersion()) + 1000n).toString();
    await expectStorageError(future.list('ns', { predicate: {}, notOlderThan: ahead }), 'TooLarge');
    await expectStorageError(future.get(key('x'), { resourceVersion: ahead }), 'TooLarge');
    const now = await store.currentResourceVersion();
    expect((await future.get(key('x'), { resourceVersion: now })).metadata.name).toBe('x');
  });

  it('stitches the first load with writes committed before and after its snapshot: nothing lost, nothing twice', async () => {
    const stitched = store.forResource('stitch.test', fieldsOf);
    for (let i = 0; i < 10; i++) await stitched.create(key(`s${i}`), object(`s${i}`, { spec: { v: 0 } }));
    // While the load waits to begin, then once its snapshot is taken: creates, updates, deletes.
    const before = async () => {
      await stitched.create(key('before'), object('before', { spec: { v: 1 } }));
      await stitched.guaranteedUpdate(key('s1'), (c) => ({ ...c!, spec: { v: 1 } }));
      await stitched.delete(key('s2'));
    };
    const after = () =>
      Promise.all([
        stitched.create(key('after'), object('after', { spec: { v: 2 } })),
        stitched.guaranteedUpdate(key('s3'), (c) => ({ ...c!, spec: { v: 2 } })),
        stitched.guaranteedUpdate(key('s1'), (c) => ({ ...c!, spec: { v: 2 } })),
        stitched.delete(key('s4')),
      ]);
    let afterWrites: Promise<unknown> | undefined;
    database.holds = {
      beforeSnapshot: before,
      // PGlite's one connection is the load's until it ends: the writes queue behind it there.
      afterFirstQuery: async () => {
        afterWrites = after();
        if (backend === 'postgres') await afterWrites;
      },
    };
    const first = await stitched.list('ns', { predicate: {}, notOlderThan: '0' });
    await afterWrites;
    await expectDatabaseState(stitched, 'ns', first);
    const consistent = await stitched.list('ns', { predicate: {} });
    expect(consistent.items.map((o) => [o.metadata.name, o.spec])).toEqual([
      ['after', { v: 2 }],
      ['before', { v: 1 }],
      ['s0', { v: 0 }],
      ['s1', { v: 2 }],
      ['s3', { v: 2 }],
      ...[5, 6, 7, 8, 9].map((i) => [`s${i}`, { v: 0 }]),
    ]);
    await expectDatabaseState(stitched, 'ns', consistent);
  });

  it('loads while writers run, and ends exactly at the database’s state', async () => {
    const raced = store.forResource('race.test', fieldsOf);
    const names = Array.from({ length: 60 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    await Promise.all(Array.from({ length: 1500 }, (_, i) => raced.create(key(`bulk${i}`), object(`bulk${i}`, { spec: { payload: 'x'.repeat(500) } }))));
    const writers = Array.from({ length: 4 }, async (_, w) => {
      const rvs: (bigint | undefined)[] = [];
      for (let i = 0; i < 60; i++) rvs.push(await randomWrite(raced, names, w * 1000 + i));
      return rvs;
    });
    // The first cached reads run while the writers do.
    const loaded = await Promise.all([raced.list('ns', { predicate: {}, notOlderThan: '0' }), raced.get(key('bulk7'))]);
    const acknowledged = maxOf((await Promise.all(writers)).flat());
    await expectDatabaseState(raced, 'ns', loaded[0]);
    const final = await raced.list('ns', { predicate: {}, notOlderThan: acknowledged.toString() });
    expect(BigInt(final.resourceVersion)).toBeGreaterThanOrEqual(acknowledged);
    await expectDatabaseState(raced, 'ns', final);
    expect(new Set(final.items.map((o) => o.metadata.name)).size).toBe(final.items.length);
  });

  // Replicas need PostgreSQL: one process owns a PGlite database.
  if (backend === 'postgres') {
    it('sees every write of both replicas once its cache is at least that fresh', async () => {
      replica = replica!;
      const here = store.forResource('replicas.test', fieldsOf);
      const there = replica.store.forResource('replicas.test', fieldsOf);
      const names = Array.from({ length: 30 }, (_, i) => `x${i}`);
      await Promise.all([here.list('ns', { predicate: {} }), there.list('ns', { predicate: {} })]);
      const writers = [here, there, here, there].map(async (storage, w) => {
        const rvs: (bigint | undefined)[] = [];
        for (let i = 0; i < 50; i++) {
          const rv = await randomWrite(storage, names, w * 1000 + i);
          rvs.push(rv);
          // Readers on both replicas, each not older than the write just acknowledged.
          if (rv !== undefined && i % 10 === 0) {
            for (const reader of [here, there]) {
              const read = await reader.list('ns', { predicate: {}, notOlderThan: rv.toString() });
              expect(BigInt(read.resourceVersion)).toBeGreaterThanOrEqual(rv);
              await expectDatabaseState(reader, 'ns', read);
            }
          }
        }
        return rvs;
      });
      const acknowledged = maxOf((await Promise.all(writers)).flat()).toString();
      for (const reader of [here, there]) {
        const read = await reader.list('ns', { predicate: {}, notOlderThan: acknowledged });
        await expectDatabaseState(reader, 'ns', read);
        for (const item of read.items) expect(await reader.get(key(item.metadata.name), { resourceVersion: acknowledged })).toEqual(item);
      }
    });

    it('gives a consistent read on one replica the write just acknowledged on the other', async () => {
      replica = replica!;
      const writer = store.forResource('ryw.test', fieldsOf);
      const reader = replica.store.forResource('ryw.test', fieldsOf);
      await writer.create(key('o'), object('o', { spec: { v: 0 } }));
      await reader.get(key('o'));
      await reader.list('ns', { predicate: {} });
      for (let v = 1; v <= 30; v++) {
        const written = (await writer.guaranteedUpdate(key('o'), (c) => ({ ...c!, spec: { v } }))).object;
        // The reader's cache hears of it by polling; the consistent read waits for that.
        expect(await reader.get(key('o'))).toEqual(written);
        expect((await reader.list('ns', { predicate: {} })).items).toEqual([written]);
      }
    });
  }

  it('selects with label and field selectors exactly what SQL selects', async () => {
    const selected = store.forResource('select.test', fieldsOf);
    const values = ['x', 'y', '1', '2', '10', '-3'];
    const colors = ['red', 'blue', ''];
    // A fixed population, random labels.
    const population = fc.sample(
      fc.record({
        namespace: fc.constantFrom('n1', 'n2', 'n3'),
        labels: fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.constantFrom(...values), { maxKeys: 3 }),
        color: fc.constantFrom(...colors),
      }),
      { numRuns: 80, seed: 12 },
    );
    await Promise.all(
      population.map((p, i) =>
        selected.create(
          { namespace: p.namespace, name: `o${i}` },
          {
            apiVersion: 'test/v1',
            kind: 'Thing',
            metadata: { name: `o${i}`, namespace: p.namespace, uid: `u${i}`, labels: p.labels },
            spec: { color: p.color },
          },
        ),
      ),
    );
    // What a selector may name ('-3' is a label value no selector can spell).
    const value = fc.constantFrom('x', 'y', '1', '2', '10');
    const requirement = fc.oneof(
      fc.tuple(fc.constantFrom('a', 'b', 'd'), fc.constantFrom('=', '==', '!='), value).map(([k, op, v]) => `${k}${op}${v}`),
      fc
        .tuple(fc.constantFrom('a', 'b'), fc.constantFrom('in', 'notin'), fc.uniqueArray(value, { minLength: 1, maxLength: 3 }))
        .map(([k, op, vs]) => `${k} ${op} (${vs.join(',')})`),
      fc.tuple(fc.constantFrom('', '!'), fc.constantFrom('a', 'c', 'd')).map(([not, k]) => `${not}${k}`),
      fc.tuple(fc.constantFrom('a', 'b'), fc.constantFrom('>', '<'), fc.constantFrom('0', '1', '5')).map(([k, op, v]) => `${k}${op}${v}`),
    );
    const fieldTerm = fc.oneof(
      fc.tuple(fc.constantFrom('=', '!='), fc.constantFrom(...colors)).map(([op, c]) => `spec.color${op}${c}`),
      fc.tuple(fc.constantFrom('=', '!='), fc.constantFrom('o1', 'o2', 'o40')).map(([op, n]) => `metadata.name${op}${n}`),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(requirement, { maxLength: 3 }),
        fc.array(fieldTerm, { maxLength: 2 }),
        fc.constantFrom(undefined, 'n1', 'n2'),
        async (labels, fields, namespace) => {
          const predicate = { labelSelector: parseLabelSelector(labels.join(',')), fieldSelector: parseFieldSelector(fields.join(',')) };
          const cached = await selected.list(namespace, { predicate });
          expect(summary(cached)).toEqual(summary(await databaseAt(selected, namespace, cached.resourceVersion, predicate)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reads rows written in an older version in the storage version, frozen', async () => {
    const versioned = store.forResource('versioned.test', fieldsOf, {
      apiVersion: 'test/v2',
      toStorage: (o) => ({ ...o, apiVersion: 'test/v2', spec: { converted: true } }),
    });
    await versioned.create(key('old'), object('old'));
    const listed = await versioned.list('ns', { predicate: {}, notOlderThan: '0' });
    const got: StoredObject = await versioned.get(key('old'));
    expect(listed.items[0]).toMatchObject({ apiVersion: 'test/v2', spec: { converted: true } });
    expect(got).toMatchObject({ apiVersion: 'test/v2', spec: { converted: true } });
    expect(Object.isFrozen(got)).toBe(true);
  });
});

describe('consistent reads of an embedded PGlite', () => {
  it.each([
    [true, 'read no log tail when the store is the only writer'],
    [false, 'read the log tail when other stores may write'],
  ])('exclusiveWriter %s: %s, and see every acknowledged write', async (exclusiveWriter) => {
    const inner = await PGliteDatabase.open();
    await migrateToLatest(inner);
    const counted = new CountingDatabase(inner);
    const store = await SqlObjectStore.open(counted, { safetyPollMs: 3_600_000, exclusiveWriter });
    try {
      const storage = store.forResource('only.test', fieldsOf);
      await storage.list('ns', { predicate: {} });
      counted.logTailReads = 0;
      for (let i = 0; i < 5; i++) {
        const written = await storage.guaranteedUpdate(key('x'), (current) => ({ ...(current ?? object('x')), spec: { i } }), { ignoreNotFound: true });
        expect(await storage.get(key('x'))).toEqual(written.object);
        expect((await storage.list('ns', { predicate: {} })).items).toEqual([written.object]);
      }
      if (exclusiveWriter) expect(counted.logTailReads).toBe(0);
      else expect(counted.logTailReads).toBeGreaterThan(0);
    } finally {
      await store.close();
      await counted.close();
    }
  });
});
