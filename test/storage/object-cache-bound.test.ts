/**
 * The object cache's bound, on both SQL backends: a resource with at most as many
 * objects as the bound is read from memory; one that grows past it is dropped and read
 * from the database (with the same answers); once it is back under the bound, the cache
 * loads it again, no sooner than its retry time. A resource too large from the start is
 * counted, never loaded. With the cache off, every read is the database's.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLabelSelector } from '../../src/machinery/selectors/label-selector.js';
import type { ResourceStorage } from '../../src/storage/interfaces.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { expectStorageError, fieldsOf, key, object } from './conformance-support.js';
import { CountingDatabase } from './counting-database.js';

const names = (storage: ResourceStorage, request = {}) => storage.list('ns', { predicate: {}, ...request }).then((l) => l.items.map((o) => o.metadata.name));

describe.each(['pglite', 'postgres'] as const)('the object cache’s bound on %s', (backend) => {
  let database: CountingDatabase;
  let bounded: SqlObjectStore;
  let uncached: SqlObjectStore;
  const retryMs = 300;

  beforeAll(async () => {
    const inner = backend === 'postgres' ? new PostgresDatabase({ connectionString: await testDatabaseUrl() }) : await PGliteDatabase.open();
    await migrateToLatest(inner);
    database = new CountingDatabase(inner);
    // No safety poll: a query counted must be the read's.
    bounded = await SqlObjectStore.open(database, { objectCacheSize: 10, objectCacheRetryMs: retryMs, safetyPollMs: 3_600_000 });
    uncached = await SqlObjectStore.open(database, { objectCacheSize: 0, safetyPollMs: 3_600_000 });
  });

  afterAll(async () => {
    await uncached?.close();
    await bounded?.close();
    await database?.close();
  });

  /** Reads `read` does, and how many statements on objects they took. */
  async function statements<T>(read: () => Promise<T>): Promise<[T, number]> {
    database.objectStatements = 0;
    const result = await read();
    return [result, database.objectStatements];
  }

  it('reads from memory up to the bound, from the database past it, and from memory again once back under it', async () => {
    const storage = bounded.forResource('bounded.test', fieldsOf);
    const all = Array.from({ length: 12 }, (_, i) => `o${String(i).padStart(2, '0')}`);
    for (const name of all.slice(0, 10)) await storage.create(key(name), object(name, {}, { n: name }));
    expect(await names(storage)).toEqual(all.slice(0, 10));
    expect(await statements(() => names(storage))).toEqual([all.slice(0, 10), 0]);
    expect(bounded.stats().resources.get('bounded.test')).toMatchObject({ live: true, objects: 10 });

    // The 11th object takes it past the bound: the cache lets go, the database answers, the same way.
    await storage.create(key(all[10]), object(all[10], {}, { n: all[10] }));
    await storage.create(key(all[11]), object(all[11], {}, { n: all[11] }));
    expect(bounded.stats().resources.get('bounded.test')).toMatchObject({ live: false, objects: 0 });
    const [listed, queried] = await statements(() => names(storage));
    expect(listed).toEqual(all);
    expect(queried).toBeGreaterThan(0);
    expect(await names(storage, { notOlderThan: '0', limit: 5 })).toEqual(all.slice(0, 5));
    expect((await storage.list('ns', { predicate: { labelSelector: parseLabelSelector('n in (o03,o11)') } })).items.map((o) => o.metadata.name)).toEqual([
      'o03',
      'o11',
    ]);
    expect((await statements(() => storage.get(key('o11'))))[1]).toBeGreaterThan(0);

    // Back under the bound: the database still answers until the retry time, then the cache loads again.
    for (const name of all.slice(8)) await storage.delete(key(name));
    expect(await names(storage)).toEqual(all.slice(0, 8));
    expect(bounded.stats().resources.get('bounded.test')?.live).toBe(false);
    await sleep(retryMs + 50);
    expect(await names(storage)).toEqual(all.slice(0, 8));
    expect(bounded.stats().resources.get('bounded.test')).toMatchObject({ live: true, objects: 8 });
    expect(await statements(() => names(storage, { notOlderThan: '0' }))).toEqual([all.slice(0, 8), 0]);
    await expectStorageError(storage.get(key('o11')), 'KeyNotFound');
  });

  it('counts a resource too large from the start and loads none of its objects', async () => {
    const storage = bounded.forResource('large.test', fieldsOf);
    for (let i = 0; i < 15; i++) await storage.create(key(`l${i}`), object(`l${i}`));
    const loads = bounded.stats().resources.get('large.test')!.loads;
    expect(await names(storage, { limit: 4 })).toEqual(['l0', 'l1', 'l10', 'l11']);
    expect(bounded.stats().resources.get('large.test')).toMatchObject({ live: false, objects: 0, loads });
  });

  it('reads everything from the database with the cache off', async () => {
    const storage = uncached.forResource('uncached.test', fieldsOf);
    await storage.create(key('a'), object('a'));
    await names(storage);
    expect(uncached.stats().resources.has('uncached.test')).toBe(false);
    expect((await statements(() => names(storage, { notOlderThan: '0' })))[1]).toBeGreaterThan(0);
    expect((await statements(() => storage.get(key('a'))))[1]).toBeGreaterThan(0);
  });
});
