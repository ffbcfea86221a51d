/**
 * The garbage collector's session lock on PostgreSQL: one session holds it at a time;
 * it is free again once the holder releases it, and lost (and free) when the holder's
 * connection is cut, as when a replica dies or the database drops it.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { garbageCollectorLockKey, trySessionLock, type SessionLock } from '../../src/storage/session-lock.js';
import { testDatabaseUrl } from '../support/test-database.js';

describe('the session lock on postgres', () => {
  let connectionString: string;
  let admin: pg.Client;
  const held: SessionLock[] = [];

  beforeAll(async () => {
    connectionString = await testDatabaseUrl();
    admin = new pg.Client({ connectionString });
    await admin.connect();
  });
  afterAll(async () => {
    for (const lock of held) await lock.release();
    await admin?.end();
  });

  const take = async (): Promise<SessionLock | undefined> => {
    const lock = await trySessionLock(connectionString, garbageCollectorLockKey);
    if (lock) held.push(lock);
    return lock;
  };

  it('is held by one session at a time, and free once released', async () => {
    const first = await take();
    expect(first).toBeDefined();
    expect(await take()).toBeUndefined();
    await first!.release();
    await first!.lost;
    expect(await take()).toBeDefined();
  });

  it('is lost with its connection, and free for another session then', async () => {
    for (const lock of held.splice(0)) await lock.release();
    const first = await take();
    expect(first).toBeDefined();
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND ((classid::bigint << 32) | objid::bigint) = $1::bigint", [
      String(garbageCollectorLockKey),
    ]);
    await first!.lost;
    expect(await take()).toBeDefined();
  });
});
