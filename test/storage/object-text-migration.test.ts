/**
 * Migration 0007 on a database whose objects are `jsonb`: each becomes the JSON text
 * PostgreSQL prints of it, which reads back as written, U+0000 (stored escaped, see
 * stored-text.ts) included, in a GET, a list's text and the event log.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { encodeJsonb } from '../../src/storage/stored-text.js';
import { fieldsOf } from './conformance-support.js';

const written = { apiVersion: 'test/v1', kind: 'Thing', metadata: { name: 'a', namespace: 'ns', resourceVersion: '1' }, spec: { text: 'a\u0000b\u0001c' } };

describe('migration 0007-object-text', () => {
  let database: PGliteDatabase;
  let store: SqlObjectStore;
  beforeAll(async () => {
    database = await PGliteDatabase.open();
    await migrateToLatest(database, '0005-reads-by-index');
    await database.run(async (db) => {
      const object = encodeJsonb(written);
      await sql`INSERT INTO cairn_objects (resource, namespace, name, uid, resource_version, api_version, labels, fields, object)
        VALUES ('things.test', 'ns', 'a', 'uid-a', 1, 'test/v1', '{}', '{"metadata.name":"a"}', ${object}::jsonb)`.execute(db);
      await sql`INSERT INTO cairn_events (resource_version, resource, namespace, name, type, labels, fields, object)
        VALUES (1, 'things.test', 'ns', 'a', 'ADDED', '{}', '{"metadata.name":"a"}', ${object}::jsonb)`.execute(db);
      await sql`UPDATE cairn_resource_version SET current = 1`.execute(db);
    });
    await migrateToLatest(database);
    store = await SqlObjectStore.open(database, { objectCacheSize: 0 });
  });
  afterAll(async () => {
    await store?.close();
    await database?.close();
  });

  it('reads each object back as written, in a GET, a list and the log', async () => {
    const things = store.forResource('things.test', fieldsOf);
    expect(await things.get({ namespace: 'ns', name: 'a' })).toEqual(written);
    const list = await things.listJson(undefined, { predicate: {} });
    expect(list.items.map((item) => JSON.parse(item) as unknown)).toEqual([written]);
    const watcher = await things.watch(undefined, '0', {});
    try {
      const first = await watcher[Symbol.asyncIterator]().next();
      expect((first.value as { object: unknown }).object).toEqual(written);
    } finally {
      watcher.stop();
    }
  });
});
