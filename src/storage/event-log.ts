/**
 * Reading the event log and the resourceVersion counter, and compacting the log (the
 * writes go in batches: write-batch-statement.ts).
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { deepFreeze, type StoredObject } from '../machinery/meta/object.js';
import type { EventLogEntry } from './event-log-entry.js';
import type { Database } from './database.js';
import type { FieldMap, StorageSchema, StringMap } from './schema.js';
import { decodeJsonb, decodeText } from './stored-text.js';

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

/**
 * An event's previous object, only where its labels or fields changed (see
 * {@link EventLogEntry.prevObject}): other events' are never needed, and not read.
 */
const selectionPrevObject = `CASE WHEN type = 'MODIFIED' AND (labels IS DISTINCT FROM prev_labels OR fields IS DISTINCT FROM prev_fields) THEN prev_object END`;

/** Reads up to `limit` events after `after`, in order; of one resource when given. */
export async function readEvents(db: Queryable, after: bigint, limit: number, resource?: string): Promise<EventLogEntry[]> {
  let query = db
    .selectFrom('cairn_events')
    .select(['resource_version', 'resource', 'namespace', 'name', 'type', 'labels', 'fields', 'prev_labels', 'prev_fields', 'object'])
    .select(sql<string | null>`${sql.raw(selectionPrevObject)}`.as('prev_object'))
    .where('resource_version', '>', after.toString());
  if (resource !== undefined) query = query.where('resource', '=', resource);
  const rows = await query.orderBy('resource_version').limit(limit).execute();
  return rows.map((row) => eventOf({ ...row, resource_version: String(row.resource_version) }));
}

/** An event log row as a frozen entry; its key as written, not as stored (stored-text.ts). */
function eventOf(row: {
  resource_version: string;
  resource: string;
  namespace: string;
  name: string;
  type: EventLogEntry['type'];
  labels: StringMap;
  fields: FieldMap;
  prev_labels: StringMap | null;
  prev_fields: FieldMap | null;
  object: string;
  prev_object: string | null;
}): EventLogEntry {
  return deepFreeze({
    rv: BigInt(row.resource_version),
    resource: row.resource,
    namespace: decodeText(row.namespace),
    name: decodeText(row.name),
    type: row.type,
    labels: row.labels,
    fields: row.fields,
    prevLabels: row.prev_labels,
    prevFields: row.prev_fields,
    object: decodeJsonb(row.object) as StoredObject,
    prevObject: row.prev_object === null ? null : (decodeJsonb(row.prev_object) as StoredObject),
  });
}

/** What one read of the log's tail found: its events after a resourceVersion, and the counters, all at one snapshot. */
export interface LogTail {
  /** The events after the resourceVersion read from, in order (at most the limit). */
  readonly events: readonly EventLogEntry[];
  /** The newest committed resourceVersion: every event up to it is among `events`, or before them, unless the limit cut them. */
  readonly current: bigint;
  /** The newest resourceVersion compaction dropped. */
  readonly compacted: bigint;
}

/**
 * The log's tail and the counters in one statement, so one snapshot: every event up to
 * `current` has committed (commits happen in resourceVersion order), so a reader that
 * got fewer than `limit` events holds every one up to `current`, including the
 * resourceVersions no event took. With `compacted` above `after`, events after `after`
 * may be gone.
 */
const logTailStatement = `SELECT h.current::text AS current, c.compacted::text AS compacted,
  e.resource_version::text AS resource_version, e.resource, e.namespace, e.name, e.type, e.labels, e.fields, e.prev_labels, e.prev_fields, e.object,
  e.prev_object
FROM cairn_resource_version h
CROSS JOIN cairn_compaction c
LEFT JOIN LATERAL (
  SELECT resource_version, resource, namespace, name, type, labels, fields, prev_labels, prev_fields, object, ${selectionPrevObject} AS prev_object
  FROM cairn_events WHERE resource_version > $1::bigint ORDER BY resource_version LIMIT $2::int
) e ON true
WHERE h.id = 1 AND c.id = 1
ORDER BY e.resource_version`;

/** Reads up to `limit` events after `after`, of every resource, with the counters of the same snapshot: one round trip. */
export async function readLogTail(database: Database, after: bigint, limit: number): Promise<LogTail> {
  const rows = await database.query(logTailStatement, [after.toString(), limit], 'cairn-log-tail');
  if (rows.length === 0) throw new Error('the resourceVersion counter row is missing');
  const events = rows.filter((row) => row.resource_version !== null).map((row) => eventOf(row as unknown as Parameters<typeof eventOf>[0]));
  return { events, current: BigInt(rows[0].current as string), compacted: BigInt(rows[0].compacted as string) };
}

/** The advisory lock a compaction holds for its transaction ("cairn-cp" in ASCII): one replica compacts at a time. */
export const compactionLockKey = 0x636169726e2d6370n;

/** How many events one compaction transaction deletes at most. */
export const defaultCompactionBatch = 1000;

/** How a compaction proceeds (tests make it take several small steps and watch them). */
export interface CompactionOptions {
  /** The most events one transaction deletes; default {@link defaultCompactionBatch}. */
  readonly batchSize?: number;
  /** Told the compacted resourceVersion after each batch, and how many events it removed, once its transaction has committed. */
  readonly onBatch?: (compacted: bigint, removed: number) => void | Promise<void>;
  /**
   * Resources whose history is kept longer than the log's (`pipelines.cairn.dev`), each
   * with its own cutoff, older than the log's: their events stay past the compacted
   * mark, where no watch reads, until they are older than their own cutoff.
   */
  readonly longerRetention?: ReadonlyMap<string, Date>;
}

/** What a compaction did: the compacted resourceVersion, whether it ran, and how many events it removed. */
export interface EventCompaction {
  readonly compacted: bigint;
  readonly ran: boolean;
  readonly removed: number;
}

/** Which events one pass of compaction walks: every resource's but some, or one resource's. */
type CompactionScope = { readonly except: readonly string[] } | { readonly only: string };

const inScope = (scope: CompactionScope, column = 'resource') => {
  if ('only' in scope) return sql`${sql.ref(column)} = ${scope.only}`;
  return scope.except.length === 0 ? sql`true` : sql`${sql.ref(column)} NOT IN (${sql.join(scope.except.map((resource) => sql`${resource}`))})`;
};

/**
 * Deletes one batch, the events in (`after`, `through`], but not the one holding a live object's
 * current state (its row's resourceVersion): that one stays until its object changes
 * again, so every live object's newest revision outlives any retention. Once it has,
 * the event that changed it (a MODIFIED or DELETED event, carrying the state before as
 * `prev_object`) names the kept one by resourceVersion, and goes with it when its own
 * batch comes: a kept event is found by its key, never by scanning what was kept.
 */
const compactBatch = (after: string, through: string, scope: CompactionScope) => sql`WITH batch AS MATERIALIZED (
  SELECT resource_version, prev_object FROM cairn_events
  WHERE resource_version > ${after}::bigint AND resource_version <= ${through}::bigint ${'only' in scope ? sql`AND ${inScope(scope)}` : sql``}
), superseded AS (
  SELECT (prev_object::jsonb #>> '{metadata,resourceVersion}')::bigint AS resource_version FROM batch WHERE prev_object IS NOT NULL
)
DELETE FROM cairn_events e
WHERE (e.resource_version IN (SELECT resource_version FROM batch)
       OR e.resource_version IN (SELECT resource_version FROM superseded WHERE resource_version <= ${after}::bigint))
  AND ${inScope(scope, 'e.resource')}
  AND NOT EXISTS (SELECT FROM cairn_objects o
                  WHERE (o.resource, o.namespace, o.name) = (e.resource, e.namespace, e.name) AND o.resource_version = e.resource_version)
RETURNING 1`;

/** Where one pass of compaction is: the log's mark, or a resource's with a longer retention. */
interface CompactionPass {
  readonly scope: CompactionScope;
  readonly cutoff: Date;
  readMark(trx: Transaction<StorageSchema>): Promise<bigint>;
  writeMark(trx: Transaction<StorageSchema>, end: string): Promise<void>;
}

/** The pass over the log's events: it moves the mark watches and lists start after. */
const logPass = (cutoff: Date, except: readonly string[]): CompactionPass => ({
  scope: { except },
  cutoff,
  readMark: (trx) => readCompactedResourceVersion(trx),
  writeMark: async (trx, end) => {
    await trx.updateTable('cairn_compaction').set({ compacted: end }).where('id', '=', 1).execute();
  },
});

/** The pass over one resource's events kept longer than the log's: its own mark, never past the log's. */
const resourcePass = (resource: string, cutoff: Date): CompactionPass => ({
  scope: { only: resource },
  cutoff,
  readMark: async (trx) => {
    const row = await trx.selectFrom('cairn_history_marks').select('compacted').where('resource', '=', resource).executeTakeFirst();
    return row ? BigInt(row.compacted) : 0n;
  },
  writeMark: async (trx, end) => {
    await trx
      .insertInto('cairn_history_marks')
      .values({ resource, compacted: end })
      .onConflict((c) => c.column('resource').doUpdateSet({ compacted: end }))
      .execute();
  },
});

/**
 * Drops the events older than `cutoff`, a batch at a time, except each live object's
 * current state: each batch deletes the next `batchSize` events after the compacted
 * mark and records the newest of them as the mark, in a short transaction of its own,
 * so readers always find the mark and the log agree (no reader reads at or before the
 * mark, so the events kept there are seen only by what reads an object's history), and
 * a large log never keeps a transaction open for long (writers take no lock compaction
 * holds: they insert newer events and never touch the mark's row). The resources with
 * a longer retention are left out of that pass and walked each by a pass of its own,
 * with its own mark, up to its own cutoff and never past the log's mark (and to the
 * log's cutoff once their longer retention is gone from the options: what they kept goes too). Unless another
 * replica is compacting (it holds the lock): then this one leaves the work to that one.
 */
export async function compactEvents(database: Database, cutoff: Date, options: CompactionOptions = {}): Promise<EventCompaction> {
  const longer = new Map(options.longerRetention);
  // A resource that had a longer retention and has it no more: its pass goes on, to the log's cutoff, for what it kept.
  const marked = await database.run((db) => db.selectFrom('cairn_history_marks').select('resource').execute());
  for (const { resource } of marked) if (!longer.has(resource)) longer.set(resource, cutoff);
  const passes = [
    logPass(cutoff, [...(options.longerRetention ?? new Map<string, Date>()).keys()]),
    ...[...longer].map(([resource, until]) => resourcePass(resource, until)),
  ];
  let removed = 0;
  let compacted = 0n;
  let first = true;
  for (const pass of passes) {
    const outcome = await compactPass(database, pass, options, first);
    first = false;
    removed += outcome.removed;
    compacted = outcome.compacted;
    // Locked out before any batch ran: another replica is compacting, and this one did not.
    if (outcome.lockedOut) return { compacted, ran: !outcome.lockedOutAtStart, removed };
  }
  return { compacted, ran: true, removed };
}

/** One pass, a batch per transaction, until its target or until another replica holds the lock (at this run's very first batch, when `firstPass`). */
async function compactPass(
  database: Database,
  pass: CompactionPass,
  options: CompactionOptions,
  firstPass: boolean,
): Promise<{ compacted: bigint; removed: number; lockedOut: boolean; lockedOutAtStart: boolean }> {
  const batchSize = options.batchSize ?? defaultCompactionBatch;
  const only = 'only' in pass.scope ? sql`AND ${inScope(pass.scope)}` : sql``;
  let target: bigint | undefined;
  let removed = 0;
  for (let first = firstPass; ; first = false) {
    const step = await database.transaction(async (trx) => {
      const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_xact_lock(${String(compactionLockKey)}::bigint) AS locked`.execute(trx);
      const logMark = await readCompactedResourceVersion(trx);
      if (!rows[0]?.locked) return { compacted: logMark, locked: false, removed: 0, batched: false, done: true };
      if (target === undefined) {
        const { rows: boundary } = await sql<{ rv: string | null }>`SELECT max(resource_version)::text AS rv FROM cairn_events
            WHERE created_at < ${pass.cutoff} ${only}`.execute(trx);
        target = BigInt(boundary[0]?.rv ?? 0);
        // A resource's pass never deletes past the log's mark: that would be a gap in what watches read.
        if ('only' in pass.scope && target > logMark) target = logMark;
      }
      const mark = await pass.readMark(trx);
      // The batch's end: the newest of the next `batchSize` events after the mark, up to the target.
      const { rows: ends } = await sql<{ rv: string | null }>`SELECT max(resource_version)::text AS rv FROM (
          SELECT resource_version FROM cairn_events WHERE resource_version > ${mark.toString()}::bigint AND resource_version <= ${target.toString()}::bigint ${only}
          ORDER BY resource_version LIMIT ${batchSize}) batch`.execute(trx);
      const end = ends[0]?.rv ?? null;
      if (end === null) {
        // A resource's mark is written even when it has nothing to do yet: it is remembered should its longer retention be dropped.
        if ('only' in pass.scope) await pass.writeMark(trx, mark.toString());
        return { compacted: logMark, locked: true, removed: 0, batched: false, done: true };
      }
      const { rows: gone } = await compactBatch(mark.toString(), end, pass.scope).execute(trx);
      await pass.writeMark(trx, end);
      return { compacted: await readCompactedResourceVersion(trx), locked: true, removed: gone.length, batched: true, done: BigInt(end) >= target };
    });
    // A later batch that finds the lock taken leaves the rest to the replica that took it.
    if (!step.locked) return { compacted: step.compacted, removed, lockedOut: true, lockedOutAtStart: first };
    removed += step.removed;
    if (step.batched) await options.onBatch?.(step.compacted, step.removed);
    if (step.done) return { compacted: step.compacted, removed, lockedOut: false, lockedOutAtStart: false };
  }
}
