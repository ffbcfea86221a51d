/**
 * Reading the event log and the resourceVersion counter, and compacting the log (the
 * writes go in batches: write-batch-statement.ts).
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { deepFreeze, type StoredObject } from '../machinery/meta/object.js';
import type { EventLogEntry } from './event-log-entry.js';
import type { StorageSchema } from './schema.js';

type Queryable = Kysely<StorageSchema> | Transaction<StorageSchema>;

/** The newest committed resourceVersion. */
export async function readCurrentResourceVersion(db: Queryable): Promise<bigint> {
  const row = await db.selectFrom('cairn_resource_version').select('current').where('id', '=', 1).executeTakeFirstOrThrow();
  return BigInt(row.current);
}

/** The newest resourceVersion whose events have been dropped by compaction. */
export async function readCompactedResourceVersion(db: Queryable): Promise<bigint> {
  const row = await db.selectFrom('cairn_compaction').select('compacted').where('id', '=', 1).executeTakeFirstOrThrow();
  return BigInt(row.compacted);
}

/** Reads up to `limit` events after `after`, in order; of one resource when given. */
export async function readEvents(db: Queryable, after: bigint, limit: number, resource?: string): Promise<EventLogEntry[]> {
  let query = db
    .selectFrom('cairn_events')
    .select(['resource_version', 'resource', 'namespace', 'name', 'type', 'labels', 'fields', 'prev_labels', 'prev_fields', 'object'])
    .where('resource_version', '>', after.toString());
  if (resource !== undefined) query = query.where('resource', '=', resource);
  const rows = await query.orderBy('resource_version').limit(limit).execute();
  return rows.map((row) =>
    deepFreeze({
      rv: BigInt(row.resource_version),
      resource: row.resource,
      namespace: row.namespace,
      name: row.name,
      type: row.type,
      labels: row.labels,
      fields: row.fields,
      prevLabels: row.prev_labels,
      prevFields: row.prev_fields,
      object: row.object as StoredObject,
    }),
  );
}

/** The advisory lock a compaction holds for its transaction ("cairn-cp" in ASCII): one replica compacts at a time. */
export const compactionLockKey = 0x636169726e2d6370n;

/**
 * Drops the events older than `cutoff`, as a prefix of the log, and records the
 * newest dropped resourceVersion, unless another replica is compacting (then this one
 * leaves it to that one). Returns the compacted resourceVersion and whether it ran.
 */
export async function compactEvents(trx: Transaction<StorageSchema>, cutoff: Date): Promise<{ compacted: bigint; ran: boolean }> {
  const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_xact_lock(${String(compactionLockKey)}::bigint) AS locked`.execute(trx);
  if (!rows[0]?.locked) return { compacted: await readCompactedResourceVersion(trx), ran: false };
  const boundary = await trx
    .selectFrom('cairn_events')
    .select((eb) => eb.fn.max('resource_version').as('rv'))
    .where('created_at', '<', cutoff)
    .executeTakeFirst();
  const rv = boundary?.rv;
  if (rv !== null && rv !== undefined) {
    await trx.deleteFrom('cairn_events').where('resource_version', '<=', String(rv)).execute();
    await trx
      .updateTable('cairn_compaction')
      .set({ compacted: sql`GREATEST(compacted, ${String(rv)}::bigint)` })
      .where('id', '=', 1)
      .execute();
  }
  return { compacted: await readCompactedResourceVersion(trx), ran: true };
}
