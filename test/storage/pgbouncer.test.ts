/**
 * Storage through PgBouncer in transaction mode, where a session lasts one transaction:
 * the conformance suite (its watches included) runs unchanged with wake-ups by polling,
 * a replica's watch hears another's writes by LISTEN on `--database-listen-url`'s
 * direct connection, the garbage collector's lease, a row, is held by one replica at a
 * time, and a server started with --database-pooler=transaction says how it is woken. The stores' safety poll is turned down to an hour, so only the
 * wake-up under test can deliver another replica's writes. One PgBouncer serves the file.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { tryLease } from '../../src/storage/lease.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import pg from 'pg';
import { eventually } from '../support/eventually.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { pipeline, startTestServer } from '../support/test-server.js';
import { collect, fieldsOf, key, object } from './conformance-support.js';
import { runStorageConformance } from './conformance.js';
import { openPooledStorage } from './sql-backends.js';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer.js';

const hour = 3_600_000;
let bouncer: Promise<PgBouncer> | undefined;

/** The URL of the direct URL's database through the file's PgBouncer, started on first use. */
async function throughPgBouncer(directUrl: string): Promise<string> {
  const url = new URL(directUrl);
  bouncer ??= startPgBouncer({ serverPort: Number(url.port), poolMode: 'transaction' });
  return (await bouncer).url(url.pathname.slice(1));
}

afterAll(async () => {
  await (await bouncer)?.stop();
});

runStorageConformance('SQL storage through PgBouncer (pool_mode=transaction), woken by polling', () =>
  openPooledStorage({ objectCacheSize: 0, safetyPollMs: hour }, throughPgBouncer, { pollIntervalMs: 100 }),
);

describe('through PgBouncer with a direct connection for LISTEN', () => {
  it("wakes a replica's watch with another's writes by LISTEN", { timeout: 60_000 }, async () => {
    const backend = await openPooledStorage({ objectCacheSize: 0, safetyPollMs: hour }, throughPgBouncer, 'listen');
    try {
      const replica = (await backend.openReplica!()).forResource('woken.test', fieldsOf);
      const watched = backend.store.forResource('woken.test', fieldsOf);
      const events = collect(await watched.watch(undefined, await backend.store.currentResourceVersion(), {}), 3);
      const written = [];
      for (const name of ['a', 'b', 'c']) written.push((await replica.create(key(name), object(name))).metadata.resourceVersion);
      expect((await events).map((event) => event.resourceVersion)).toEqual(written);
    } finally {
      await backend.close();
    }
  });
});

describe('a lease through PgBouncer', () => {
  it('is held by one replica at a time, free once released, and taken over once its holder lost the database', { timeout: 60_000 }, async () => {
    const url = await throughPgBouncer(await testDatabaseUrl());
    const [first, second] = [0, 1].map(() => new PostgresDatabase({ connectionString: url, pooler: 'transaction', maxConnections: 2 }));
    try {
      await migrateToLatest(first);
      const timing = { durationMs: 1000, renewMs: 100 };
      const held = await tryLease(first, 'test', timing);
      expect(held).toBeDefined();
      expect(await tryLease(second, 'test', timing)).toBeUndefined();
      await held!.release();
      await held!.lost;
      const taken = await tryLease(second, 'test', timing);
      expect(taken).toBeDefined();
      expect(await tryLease(first, 'test', timing)).toBeUndefined();
      // The holder's renewals now fail: it counts itself lost, and the lease expires for the other.
      await second.close();
      await taken!.lost;
      let retaken;
      for (const until = Date.now() + 10_000; !retaken && Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 100)))
        retaken = await tryLease(first, 'test', timing);
      expect(retaken).toBeDefined();
      await retaken?.release();
    } finally {
      await first.close();
      await second.close();
    }
  });
});

describe('a server through PgBouncer', () => {
  it("polls and takes the collector's lease without --database-listen-url, listens with it, and says which", { timeout: 120_000 }, async () => {
    const direct = await testDatabaseUrl();
    const pooled = await throughPgBouncer(direct);
    const polling = await startTestServer({ backend: 'postgres', databaseUrl: pooled, args: ['--database-pooler=transaction'], garbageCollector: true });
    const admin = new pg.Client({ connectionString: direct });
    await admin.connect();
    try {
      expect(await polling.ready).toMatchObject({ backend: 'postgres', wakeups: { pollIntervalMs: 1000 } });
      expect((await polling.request('POST', '/apis/cairn.dev/v1/namespaces/pooled/pipelines', { body: pipeline('p') })).status).toBe(201);
      expect((await polling.request('GET', '/apis/cairn.dev/v1/namespaces/pooled/pipelines/p')).status).toBe(200);
      // The collector runs under a lease row, as no session survives the pooler to hold an advisory lock.
      await eventually('the collector holds its lease', 30_000, async () => {
        const { rows } = await admin.query("SELECT 1 FROM cairn_leases WHERE name = 'garbage-collector' AND expires_at > now()");
        return rows.length === 1;
      });
    } finally {
      await polling.destroy();
    }
    const listening = await startTestServer({
      backend: 'postgres',
      databaseUrl: pooled,
      args: ['--database-pooler=transaction', '--database-listen-url', direct],
    });
    try {
      const { port } = new URL(direct);
      expect(await listening.ready).toMatchObject({ wakeups: { listen: `127.0.0.1:${port}` } });
      expect((await listening.request('GET', '/apis/cairn.dev/v1/namespaces/pooled/pipelines/p')).status).toBe(200);
    } finally {
      await listening.destroy();
      await admin.end();
    }
  });
});
