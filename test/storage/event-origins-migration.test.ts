/**
 * Migration 0010 on a database whose event log already holds a name's two
 * incarnations: the events that begin and end each learn their object's uid, the others
 * are not rewritten, and the history reads every revision, by name and by uid, with no
 * origin (none was recorded).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceStorage } from '../../src/storage/interfaces.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { fieldsOf } from './conformance-support.js';

/** The object of `uid` at `rv`, as an event holds it. */
const object = (uid: string, rv: number) =>
  JSON.stringify({ apiVersion: 'test/v1', kind: 'Thing', metadata: { name: 'again', namespace: 'ns', uid, resourceVersion: String(rv) } });

describe('migration 0010-event-origins', () => {
  let database: PGliteDatabase;
  let store: SqlObjectStore;
  let things: ResourceStorage;

  beforeAll(async () => {
    database = await PGliteDatabase.open();
    await migrateToLatest(database, '0009-history-marks');
    await database.run(async (db) => {
      // uid-1 created (1), changed (2) and deleted (3); uid-2 created again under the name (4) and changed (5).
      const events: [number, string, string][] = [
        [1, 'ADDED', 'uid-1'],
        [2, 'MODIFIED', 'uid-1'],
        [3, 'DELETED', 'uid-1'],
        [4, 'ADDED', 'uid-2'],
        [5, 'MODIFIED', 'uid-2'],
      ];
      for (const [rv, type, uid] of events) {
        await sql`INSERT INTO cairn_events (resource_version, resource, namespace, name, type, labels, fields, object)
          VALUES (${rv}, 'things.test', 'ns', 'again', ${type}, '{}', '{}', ${object(uid, rv)})`.execute(db);
      }
      await sql`INSERT INTO cairn_objects (resource, namespace, name, uid, resource_version, api_version, labels, fields, object)
        VALUES ('things.test', 'ns', 'again', 'uid-2', 5, 'test/v1', '{}', '{}', ${object('uid-2', 5)})`.execute(db);
      await sql`UPDATE cairn_resource_version SET current = 5`.execute(db);
    });
    await migrateToLatest(database);
    store = await SqlObjectStore.open(database, { objectCacheSize: 0 });
    things = store.forResource('things.test', fieldsOf);
  });

  afterAll(async () => {
    await store?.close();
    await database?.close();
  });

  it('records the uid of the events that begin and end an incarnation, and rewrites no other', async () => {
    const rows = await database.run((db) =>
      db.selectFrom('cairn_events').select(['resource_version', 'uid', 'operation']).orderBy('resource_version').execute(),
    );
    expect(rows.map((r) => [Number(r.resource_version), r.uid, r.operation])).toEqual([
      [1, 'uid-1', null],
      [2, null, null],
      [3, 'uid-1', null],
      [4, 'uid-2', null],
      [5, null, null],
    ]);
  });

  it('reads the revisions logged before, by name and by uid, with no origin', async () => {
    const read = async (uid?: string) =>
      (await things.history({ namespace: 'ns', name: 'again' }, { limit: 10, ...(uid ? { uid } : {}) })).revisions.map((r) => [r.resourceVersion, r.origin]);
    expect(await read()).toEqual(['5', '4', '3', '2', '1'].map((rv) => [rv, undefined]));
    expect(await read('uid-1')).toEqual(['3', '2', '1'].map((rv) => [rv, undefined]));
    expect(await read('uid-2')).toEqual(['5', '4'].map((rv) => [rv, undefined]));
  });
});
