/**
 * A write that reaches a read-only PostgreSQL — a primary being demoted, or a standby
 * reached through a proxy that has not yet noticed (HAProxy starts every server up
 * until its checks say otherwise) — is refused as Unavailable, the retriable 503, and
 * not as an internal error: nothing was written, so the client may simply try again.
 * Cairn's sessions check that they can write when they open, so the server turns
 * read-only under sessions already open, as a demotion does: its own throwaway cluster,
 * made read-only with `default_transaction_read_only` through `ALTER SYSTEM`.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.js';
import { expectStorageError, fieldsOf, key, object } from './conformance-support.js';

describe('writes to a PostgreSQL turned read-only', () => {
  let cluster: PostgresCluster;
  let url: string;
  let database: PostgresDatabase;
  let store: SqlObjectStore;

  /** A plain client: Cairn's would refuse the read-only server. */
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    url = await cluster.createDatabase();
    database = new PostgresDatabase({ connectionString: url, onBackgroundError: () => undefined });
    await migrateToLatest(database);
    store = await SqlObjectStore.open(database);
  });

  afterAll(async () => {
    await store?.close();
    await database?.close();
    await cluster?.destroy();
  });

  it('refuses every write of a batch as Unavailable, and none is written', async () => {
    const pipelines = store.forResource('readonly.test', fieldsOf);
    // Open sessions in the pool first, so the writes below run on sessions that were writable.
    await Promise.all(Array.from({ length: 4 }, (_, i) => pipelines.create(key(`before-${i}`), object(`before-${i}`))));
    await admin(async (client) => {
      await client.query('ALTER SYSTEM SET default_transaction_read_only = on');
      await client.query('SELECT pg_reload_conf()');
    });
    await Promise.all(Array.from({ length: 4 }, (_, i) => expectStorageError(pipelines.create(key(`new-${i}`), object(`new-${i}`)), 'Unavailable')));
    const names = await admin(
      async (client) => (await client.query<{ name: string }>("SELECT name FROM cairn_objects WHERE resource = 'readonly.test' ORDER BY name")).rows,
    );
    expect(names.map((row) => row.name)).toEqual(['before-0', 'before-1', 'before-2', 'before-3']);
  });
});
