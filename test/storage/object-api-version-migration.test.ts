/**
 * Migration 0004 on a database that already has objects: each row records the
 * apiVersion its object is in, read from the object.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';

describe('migration 0004-object-api-version', () => {
  let database: PGliteDatabase;
  beforeAll(async () => {
    database = await PGliteDatabase.open();
    await migrateToLatest(database, '0003-pipeline-logs');
    await database.run(async (db) => {
      await sql`
        INSERT INTO cairn_objects (resource, namespace, name, uid, resource_version, labels, fields, object) VALUES
          ('pipelines.cairn.dev', 'ns', 'old', 'u1', 1, '{}', '{}', '{"apiVersion":"cairn.dev/v1alpha1","kind":"Pipeline"}'),
          ('pipelines.cairn.dev', 'ns', 'new', 'u2', 2, '{}', '{}', '{"apiVersion":"cairn.dev/v1","kind":"Pipeline"}')`.execute(db);
    });
    await migrateToLatest(database);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('records the apiVersion of every existing object', async () => {
    const rows = await database.run((db) => db.selectFrom('cairn_objects').select(['name', 'api_version']).orderBy('name').execute());
    expect(rows).toEqual([
      { name: 'new', api_version: 'cairn.dev/v1' },
      { name: 'old', api_version: 'cairn.dev/v1alpha1' },
    ]);
  });
});
