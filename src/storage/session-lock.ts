/**
 * A PostgreSQL session advisory lock on a connection of its own, for work one replica
 * does at a time for as long as it runs (the garbage collector), where compaction's
 * transaction lock covers one run. The lock is the session's: it goes with the
 * connection, so a replica that dies or loses the database lets another take over.
 * It needs a session of its own: through a transaction pooler, give it a direct
 * connection string.
 */
import { parseConnectionString } from './connection-string.js';
import { connectWritableSession } from './server-sessions.js';

/** The advisory lock of the garbage collector ("cairn-gc" in ASCII), beside compaction's ("cairn-cp"). */
export const garbageCollectorLockKey = 0x636169726e2d6763n;

/** How often a held lock's connection is checked, in ms. */
const checkIntervalMs = 2000;

/** A lock this process holds. */
export interface SessionLock {
  /** Resolves when the lock is lost with its connection. */
  readonly lost: Promise<void>;
  /** Unlocks and closes the connection. */
  release(): Promise<void>;
}

/**
 * Takes the lock `key` on the first writable server of `connectionString` (a standby's
 * locks would not exclude the primary's holders) if no other session holds it;
 * undefined if one does.
 */
export async function trySessionLock(connectionString: string, key: bigint): Promise<SessionLock | undefined> {
  const { client } = await connectWritableSession(parseConnectionString(connectionString), { connectionTimeoutMillis: 5000, keepAlive: true });
  let markLost!: () => void;
  const lost = new Promise<void>((resolve) => (markLost = resolve));
  client.on('error', () => markLost());
  client.on('end', () => markLost());
  try {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [String(key)]);
    if (!rows[0]?.locked) {
      await client.end();
      return undefined;
    }
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  // An idle connection whose server went away says nothing until it is used: the lock is checked this often.
  const check = setInterval(() => client.query('SELECT 1').catch(() => markLost()), checkIntervalMs);
  check.unref();
  void lost.then(() => clearInterval(check));
  return {
    lost,
    // Ending the session releases its advisory locks.
    release: () => client.end().catch(() => undefined),
  };
}
