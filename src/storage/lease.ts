/**
 * A lease in a row (`cairn_leases`), for work one replica does at a time when no
 * session of its own can hold an advisory lock: through a transaction-mode pooler a
 * session lasts one transaction. Expiry is the database's clock, so replicas' clocks
 * need not agree; the holder renews it and counts itself lost, by its own clock, before
 * the database could let another take it.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from './database.js';
import type { SessionLock } from './session-lock.js';

/** How long a lease lasts unrenewed, and how often its holder renews it (kube's leader election: 15 s and 2 s). */
export interface LeaseTiming {
  readonly durationMs: number;
  readonly renewMs: number;
}

const defaultTiming: LeaseTiming = { durationMs: 15_000, renewMs: 2000 };

/** Takes the lease, or renews it for its holder, or takes it over once expired: a row back means it is held. */
const takeStatement = `
  INSERT INTO cairn_leases (name, holder, expires_at) VALUES ($1, $2, now() + $3::int * interval '1 millisecond')
  ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
  WHERE cairn_leases.holder = EXCLUDED.holder OR cairn_leases.expires_at < now()
  RETURNING holder`;

/**
 * Takes the lease `name` if nobody holds it (or the holder let it expire); undefined if
 * another replica holds it. The lease is renewed until released or lost.
 *
 * @example
 * const lease = await tryLease(database, 'garbage-collector');
 * if (lease) { await lease.lost; }
 */
export async function tryLease(database: Database, name: string, timing: LeaseTiming = defaultTiming): Promise<SessionLock | undefined> {
  const holder = randomUUID();
  const take = async (): Promise<boolean> => (await database.query(takeStatement, [name, holder, timing.durationMs])).length === 1;
  const taken = performance.now();
  if (!(await take())) return undefined;
  let validUntil = taken + timing.durationMs;
  let markLost!: () => void;
  const lost = new Promise<void>((resolve) => (markLost = resolve));
  const renew = setInterval(() => {
    // From when the renewal was sent: the database's expiry counts from a later moment.
    const sent = performance.now();
    if (sent > validUntil) return markLost();
    take().then(
      (held) => (held ? (validUntil = sent + timing.durationMs) : markLost()),
      () => undefined,
    );
  }, timing.renewMs);
  renew.unref();
  void lost.then(() => clearInterval(renew));
  return {
    lost,
    async release() {
      markLost();
      // Only while this replica still holds it: a lease taken over since has another holder.
      await database.query('DELETE FROM cairn_leases WHERE name = $1 AND holder = $2', [name, holder]).catch(() => undefined);
    },
  };
}
