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

/**
 * Drops the events older than `cutoff`, as a prefix of the log, and records the
 * newest dropped resourceVersion. Returns the compacted resourceVersion.
 */
export async function compactEvents(trx: Transaction<StorageSchema>, cutoff: Date): Promise<bigint> {
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
  return readCompactedResourceVersion(trx);
}
