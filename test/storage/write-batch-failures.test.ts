/**
 * A write batch that fails, or outlives its callers, on PostgreSQL: a batch whose
 * connection the database drops fails every write in it with Unavailable and applies
 * none; a write whose caller stopped waiting is applied whole; a delete that waited for
 * an object's row lock takes the log lines committed meanwhile with it. A session of
 * the test holds the locks a batch needs, so the batch is caught mid-flight for sure.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceStorage } from '../../src/storage/interfaces.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { collect, fieldsOf, key, object, within } from './conformance-support.js';

describe('write batches on postgres, when things go wrong', () => {
  let database: PostgresDatabase;
  let store: SqlObjectStore;
  /** The test's own session, which holds locks the store's batches wait for. */
  let holder: pg.Client;
  /** Another, which watches them wait (inside the holder's transaction, pg_stat_activity would not change). */
  let observer: pg.Client;

  beforeAll(async () => {
    const connectionString = await testDatabaseUrl();
    database = new PostgresDatabase({ connectionString, onBackgroundError: () => undefined });
    await migrateToLatest(database);
    store = await SqlObjectStore.open(database);
    holder = new pg.Client({ connectionString });
    await holder.connect();
    observer = new pg.Client({ connectionString });
    await observer.connect();
  });

  afterAll(async () => {
    await holder?.end();
    await observer?.end();
    await store?.close();
    await database?.close();
  });

  /** The backend of the store's batch once it waits for a lock the holder has. */
  async function waitingBatch(): Promise<number> {
    return within(
      'a batch waiting for the lock',
      (async () => {
        for (;;) {
          const { rows } = await observer.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%cairn_objects%'`,
          );
          if (rows.length > 0) return rows[0].pid;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })(),
    );
  }

  /** Per object name of `resource`: its row's resourceVersion, and its events' types and resourceVersions. */
  async function stored(resource: string): Promise<{ rows: Map<string, string>; events: Map<string, [string, string][]> }> {
    const objects = await holder.query<{ name: string; rv: string }>('SELECT name, resource_version::text AS rv FROM cairn_objects WHERE resource = $1', [
      resource,
    ]);
    const logged = await holder.query<{ name: string; type: string; rv: string }>(
      'SELECT name, type, resource_version::text AS rv FROM cairn_events WHERE resource = $1 ORDER BY resource_version',
      [resource],
    );
    const events = new Map<string, [string, string][]>();
    for (const e of logged.rows) events.set(e.name, [...(events.get(e.name) ?? []), [e.type, e.rv]]);
    return { rows: new Map(objects.rows.map((o) => [o.name, o.rv])), events };
  }

  it('fails every write of a batch whose connection the database dropped with Unavailable, and applies none of them', async () => {
    const dropped = store.forResource('dropped.test', fieldsOf);
    await dropped.create(key('existing'), object('existing', { spec: { v: 1 } }));
    const before = await store.currentResourceVersion();
    await holder.query('BEGIN');
    await holder.query('SELECT current FROM cairn_resource_version WHERE id = 1 FOR UPDATE');
    let settled: PromiseSettledResult<unknown>[];
    try {
      // Issued in one turn: one batch, which waits for the counter.
      const writes = Promise.allSettled(Array.from({ length: 8 }, (_, i) => dropped.create(key(`new-${i}`), object(`new-${i}`))));
      const pid = await waitingBatch();
      await holder.query('SELECT pg_terminate_backend($1)', [pid]);
      settled = await within('the writes of the dropped batch', writes);
    } finally {
      await holder.query('ROLLBACK');
    }
    for (const result of settled) {
      expect(result.status).toBe('rejected');
      const reason = (result as PromiseRejectedResult).reason as StorageError;
      expect(reason).toBeInstanceOf(StorageError);
      expect(reason.code).toBe('Unavailable');
    }
    // Nothing of the batch: no row, no event, no resourceVersion taken.
    expect(await store.currentResourceVersion()).toBe(before);
    const { rows, events } = await stored('dropped.test');
    expect([...rows.keys()]).toEqual(['existing']);
    expect([...events.keys()]).toEqual(['existing']);
    // The next batch runs on another connection.
    await dropped.create(key('after'), object('after'));
  });

  it('applies a write whose caller stopped waiting wholly, row and event', async () => {
    const abandoned = store.forResource('abandoned.test', fieldsOf);
    for (const name of ['u', 'd']) await abandoned.create(key(name), object(name, { spec: { v: 1 } }));
    const watcher = collect(await abandoned.watch(undefined, await store.currentResourceVersion(), {}), 4);
    await holder.query('BEGIN');
    await holder.query('SELECT current FROM cairn_resource_version WHERE id = 1 FOR UPDATE');
    try {
      const writes = [
        abandoned.create(key('c1'), object('c1')),
        abandoned.create(key('c2'), object('c2')),
        abandoned.guaranteedUpdate(key('u'), (c) => ({ ...c, spec: { v: 2 } })),
        abandoned.delete(key('d')),
      ];
      await waitingBatch();
      // The callers give up (a client that went away): nobody awaits the writes any longer.
      for (const write of writes) write.catch(() => undefined);
    } finally {
      await holder.query('COMMIT');
    }
    // The update and the delete read first, so they may share the creates' batch or follow in the next one.
    const received = new Map((await watcher).map((e) => [e.object.metadata.name, [e.type, e.resourceVersion]]));
    expect(Object.fromEntries([...received].map(([name, [type]]) => [name, type]))).toEqual({ c1: 'ADDED', c2: 'ADDED', u: 'MODIFIED', d: 'DELETED' });
    const { rows, events } = await stored('abandoned.test');
    expect(Object.fromEntries(rows)).toEqual({ c1: received.get('c1')![1], c2: received.get('c2')![1], u: received.get('u')![1] });
    for (const name of ['c1', 'c2', 'u', 'd']) expect(events.get(name)?.at(-1)).toEqual(received.get(name));
    expect(events.get('c1')).toHaveLength(1);
  });

  it('deletes the log lines an append committed while the delete waited for the object', async () => {
    const logged: ResourceStorage = store.forResource('logged.test', fieldsOf);
    await logged.create(key('x'), object('x'));
    await logged.logs.append(key('x'), ['before'], () => 'one');
    // An append in flight, as SqlLogStorage makes one: the object's row locked, a line inserted, not yet committed.
    await holder.query('BEGIN');
    try {
      await holder.query(`SELECT 1 FROM cairn_objects WHERE resource = 'logged.test' AND namespace = 'ns' AND name = 'x' FOR UPDATE`);
      await holder.query(`INSERT INTO cairn_log_lines (uid, stream, line, byte_offset) VALUES ('uid-x', 'one', 'during', 7)`);
      const deleting = logged.delete(key('x'));
      await waitingBatch();
      await holder.query('COMMIT');
      await within('the delete', deleting);
    } catch (error) {
      await holder.query('ROLLBACK');
      throw error;
    }
    expect(await logged.logs.read('uid-x', { after: 0n, limit: 10 })).toEqual([]);
  });
});
