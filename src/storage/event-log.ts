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

const historyMarkOf = 'SELECT compacted FROM cairn_history_marks WHERE resource = ';
const logMark = '(SELECT compacted FROM cairn_compaction WHERE id = 1)';

/**
 * The newest resourceVersion whose events of `resource` compaction may have dropped:
 * its own mark when its history is kept longer than the log's (`cairn_history_marks`,
 * which compaction keeps only while the log's pass leaves the resource out), else the
 * log's. Reads of that resource's past (exact gets and lists, watches) reach back to it.
 * A scalar subquery, so a statement reads it in its own snapshot, beside what it reads.
 */
export const resourceCompactedSql = (resource: string) => sql<string>`coalesce((${sql.raw(historyMarkOf)}${resource}), ${sql.raw(logMark)})`;

/** {@link resourceCompactedSql} as statement text, the resource being the parameter `parameter` (`$1`): for a prepared statement. */
export const resourceCompactedText = (parameter: string) => `coalesce((${historyMarkOf}${parameter}), ${logMark})`;

/** The newest resourceVersion whose events of `resource` may be gone: see {@link resourceCompactedSql}. */
export async function readResourceCompacted(db: Queryable, resource: string): Promise<bigint> {
  const { rows } = await sql<{ compacted: string }>`SELECT ${resourceCompactedSql(resource)}::text AS compacted`.execute(db);
  return BigInt(rows[0].compacted);
}

/**
 * An event's previous object, only where its labels or fields changed (see
 * {@link EventLogEntry.prevObject}): other events' are never needed, and not read.
 */
const selectionPrevObject = `CASE WHEN type = 'MODIFIED' AND (labels IS DISTINCT FROM prev_labels OR fields IS DISTINCT FROM prev_fields) THEN prev_object END`;

/**
 * The query of up to `limit` events after `after`, in order; of one resource when given
 * (a range of `cairn_events_resource_rv`: a watch reading what the watch cache no longer
 * holds). Exported for the test that reads its plan.
 */
export function eventsQuery(db: Queryable, after: bigint, limit: number, resource?: string) {
  let query = db
    .selectFrom('cairn_events')
    .select(['resource_version', 'resource', 'namespace', 'name', 'type', 'labels', 'fields', 'prev_labels', 'prev_fields', 'object'])
    .select(sql<string | null>`${sql.raw(selectionPrevObject)}`.as('prev_object'))
    .where('resource_version', '>', after.toString());
  if (resource !== undefined) query = query.where('resource', '=', resource);
  return query.orderBy('resource_version').limit(limit);
}

/** Reads up to `limit` events after `after`, in order; of one resource when given. */
export async function readEvents(db: Queryable, after: bigint, limit: number, resource?: string): Promise<EventLogEntry[]> {
  const rows = await eventsQuery(db, after, limit, resource).execute();
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

/** Where one pass of compaction is: the log's mark, or a resource's with a longer retention (or one it had). */
interface CompactionPass {
  readonly scope: CompactionScope;
  /** The newest resourceVersion the pass removes events through, given the log's mark when it starts. */
  target(trx: Transaction<StorageSchema>, logMark: bigint): Promise<bigint>;
  readMark(trx: Transaction<StorageSchema>): Promise<bigint>;
  /** Records the pass's progress through `end`, its target reached when `finished`. */
  writeMark(trx: Transaction<StorageSchema>, end: bigint, finished: boolean): Promise<void>;
}

/** The newest event (of the scope) older than `cutoff`. */
async function cutoffTarget(trx: Transaction<StorageSchema>, cutoff: Date, scope: CompactionScope): Promise<bigint> {
  const only = 'only' in scope ? sql`AND ${inScope(scope)}` : sql``;
  const { rows } = await sql<{ rv: string | null }>`SELECT max(resource_version)::text AS rv FROM cairn_events
      WHERE created_at < ${cutoff} ${only}`.execute(trx);
  return BigInt(rows[0]?.rv ?? 0);
}

/** A resource's mark, or undefined when it has none. */
async function readHistoryMark(trx: Transaction<StorageSchema>, resource: string): Promise<bigint | undefined> {
  const row = await trx.selectFrom('cairn_history_marks').select('compacted').where('resource', '=', resource).executeTakeFirst();
  return row ? BigInt(row.compacted) : undefined;
}

async function writeHistoryMark(trx: Transaction<StorageSchema>, resource: string, end: bigint): Promise<void> {
  const compacted = end.toString();
  await trx
    .insertInto('cairn_history_marks')
    .values({ resource, compacted })
    .onConflict((c) => c.column('resource').doUpdateSet({ compacted }))
    .execute();
}

/**
 * The pass over the log's events: it moves the mark watches and lists start after.
 * Before it moves the mark past the events of a resource it leaves out (`except`),
 * that resource gets a mark of its own where the log's is, in the same transaction:
 * every event of it up to there went with the log's earlier passes, and every one
 * after stays for its own pass, so its readers always find its mark and its events agree.
 */
const logPass = (cutoff: Date, except: readonly string[]): CompactionPass => ({
  scope: { except },
  target: (trx) => cutoffTarget(trx, cutoff, { except }),
  readMark: async (trx) => {
    const mark = await readCompactedResourceVersion(trx);
    if (except.length > 0) {
      await trx
        .insertInto('cairn_history_marks')
        .values(except.map((resource) => ({ resource, compacted: mark.toString() })))
        .onConflict((c) => c.column('resource').doNothing())
        .execute();
    }
    return mark;
  },
  writeMark: async (trx, end) => {
    await trx.updateTable('cairn_compaction').set({ compacted: end.toString() }).where('id', '=', 1).execute();
  },
});

/** The pass over one resource's events kept longer than the log's: its own mark, never past the log's. */
const resourcePass = (resource: string, cutoff: Date): CompactionPass => ({
  scope: { only: resource },
  target: async (trx, logMark) => {
    const target = await cutoffTarget(trx, cutoff, { only: resource });
    // A resource's pass never deletes past the log's mark: that would be a gap in what watches read.
    return target > logMark ? logMark : target;
  },
  readMark: async (trx) => (await readHistoryMark(trx, resource)) ?? 0n,
  // A resource's mark is written even when it has nothing to do yet: it is remembered should its longer retention be dropped.
  writeMark: (trx, end) => writeHistoryMark(trx, resource, end),
});

/**
 * The pass over what was kept for a resource whose longer retention is gone from the
 * options: its events up to the log's mark go, as the other resources' went, and its
 * mark goes with the last of them, so the log's pass, which covers it again from then
 * on, and its readers find the one mark. Until then the log's pass still leaves it out.
 */
const droppedPass = (resource: string): CompactionPass => ({
  scope: { only: resource },
  target: (_trx, logMark) => Promise.resolve(logMark),
  readMark: async (trx) => (await readHistoryMark(trx, resource)) ?? 0n,
  writeMark: async (trx, end, finished) => {
    if (finished) await trx.deleteFrom('cairn_history_marks').where('resource', '=', resource).execute();
    else await writeHistoryMark(trx, resource, end);
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
 * with its own mark, up to its own cutoff and never past the log's mark; a resource
 * whose longer retention is gone from the options has what was kept for it removed up
 * to the log's mark first, before the log's pass covers it again. Unless another
 * replica is compacting (it holds the lock): then this one leaves the work to that one.
 */
export async function compactEvents(database: Database, cutoff: Date, options: CompactionOptions = {}): Promise<EventCompaction> {
  const longer = options.longerRetention ?? new Map<string, Date>();
  const marked = await database.run((db) => db.selectFrom('cairn_history_marks').select('resource').execute());
  const dropped = marked.map(({ resource }) => resource).filter((resource) => !longer.has(resource));
  const passes = [...dropped.map(droppedPass), logPass(cutoff, [...longer.keys()]), ...[...longer].map(([resource, until]) => resourcePass(resource, until))];
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
      target ??= await pass.target(trx, logMark);
      const mark = await pass.readMark(trx);
      // The batch's end: the newest of the next `batchSize` events after the mark, up to the target.
      const { rows: ends } = await sql<{ rv: string | null }>`SELECT max(resource_version)::text AS rv FROM (
          SELECT resource_version FROM cairn_events WHERE resource_version > ${mark.toString()}::bigint AND resource_version <= ${target.toString()}::bigint ${only}
          ORDER BY resource_version LIMIT ${batchSize}) batch`.execute(trx);
      const end = ends[0]?.rv ?? null;
      if (end === null) {
        await pass.writeMark(trx, mark, true);
        return { compacted: logMark, locked: true, removed: 0, batched: false, done: true };
      }
      const { rows: gone } = await compactBatch(mark.toString(), end, pass.scope).execute(trx);
      const finished = BigInt(end) >= target;
      await pass.writeMark(trx, BigInt(end), finished);
      return { compacted: await readCompactedResourceVersion(trx), locked: true, removed: gone.length, batched: true, done: finished };
    });
    // A later batch that finds the lock taken leaves the rest to the replica that took it.
    if (!step.locked) return { compacted: step.compacted, removed, lockedOut: true, lockedOutAtStart: first };
    removed += step.removed;
    if (step.batched) await options.onBatch?.(step.compacted, step.removed);
    if (step.done) return { compacted: step.compacted, removed, lockedOut: false, lockedOutAtStart: false };
  }
}
