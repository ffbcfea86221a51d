/**
 * A write that reaches a read-only PostgreSQL — a standby, or a primary being demoted,
 * reached through a proxy that has not yet noticed (HAProxy starts every server up
 * until its checks say otherwise) — is refused as Unavailable, the retriable 503, and
 * not as an internal error: nothing was written, so the client may simply try again.
 * Here the server is the run's own, its sessions read-only by `default_transaction_read_only`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { expectStorageError, fieldsOf, key, object } from './conformance-support.js';

describe('writes to a read-only PostgreSQL', () => {
  let writable: PostgresDatabase;
  let readOnly: PostgresDatabase;
  let store: SqlObjectStore;

  beforeAll(async () => {
    const connectionString = await testDatabaseUrl();
    writable = new PostgresDatabase({ connectionString });
    await migrateToLatest(writable);
    const url = new URL(connectionString);
    url.searchParams.set('options', '-c default_transaction_read_only=on');
    readOnly = new PostgresDatabase({ connectionString: url.toString(), onBackgroundError: () => undefined });
    store = await SqlObjectStore.open(readOnly);
  });

  afterAll(async () => {
    await store?.close();
    await readOnly?.close();
    await writable?.close();
  });

  it('refuses every write of a batch as Unavailable, and none is written', async () => {
    const pipelines = store.forResource('readonly.test', fieldsOf);
    await Promise.all(Array.from({ length: 4 }, (_, i) => expectStorageError(pipelines.create(key(`new-${i}`), object(`new-${i}`)), 'Unavailable')));
    const { rows } = await writable.run((db) =>
      db
        .selectFrom('cairn_objects')
        .select('name')
        .where('resource', '=', 'readonly.test')
        .execute()
        .then((r) => ({ rows: r })),
    );
    expect(rows).toEqual([]);
  });
});
