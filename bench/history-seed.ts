/**
 * Seeding an object history for the history bench (issue 26 item 5): after
 * bench/seed.ts wrote each Pipeline and its ADDED event, every Pipeline is updated
 * `revisions - 1` times in rounds (round r updates every object once, in the order they
 * were created), each update a MODIFIED event with its prior state, as the write path
 * logs one, and the object's row left at its newest revision. The events are written
 * by PostgreSQL from the round before (`INSERT … SELECT` over a range of resourceVersions,
 * a batch of objects per statement), so a history of ten million events takes minutes
 * and never passes through this process. Only the first round parses the objects: the
 * later ones rewrite two values in the text the round before wrote (`revisionOf`).
 */
import { sql, type RawBuilder } from 'kysely';
import { pipelines } from '../src/apis/cairn/pipelines.js';
import { storageName } from '../src/registry/resource-storage.js';
import type { Database } from '../src/storage/database.js';
import type { Seeded } from './seed.js';

/** Options of {@link seedRevisions}. */
export interface RevisionOptions {
  /** What bench/seed.ts wrote: objects with consecutive resourceVersions from `first`. */
  readonly seeded: Seeded;
  /** Revisions of each object, its ADDED one included. */
  readonly revisions: number;
  /** Objects per statement; default 20,000. */
  readonly batch?: number;
  /** Told the round and the objects of it written so far, after each batch. */
  readonly onProgress?: (round: number, written: number) => void;
}

/** Where the revisions of a seeded history are: round `r` (0 the ADDED events) of object `i` is at `first + r × count + i`. */
export interface SeededHistory {
  readonly first: bigint;
  readonly count: number;
  readonly revisions: number;
  /** The newest resourceVersion written. */
  readonly last: bigint;
}

/** The resourceVersion of round `round` of object `i` (counted from the seeding's first). */
export const revisionAt = (h: SeededHistory, i: number, round: number): bigint => h.first + BigInt(round * h.count + i);

/**
 * Writes rounds 1 to `revisions - 1` into a database no server is using, right after the
 * seeding it continues (nothing else took resourceVersions in between). Each MODIFIED
 * event carries the object with its new resourceVersion and a changed annotation, and
 * the object before it; the origin columns, where the schema has them, say a field
 * manager updated it. The objects' rows then take their newest revision.
 */
export async function seedRevisions(database: Database, options: RevisionOptions): Promise<SeededHistory> {
  const resource = storageName(pipelines);
  const batch = options.batch ?? 20_000;
  const { first, last } = options.seeded;
  const count = Number(last - first + 1n);
  const history = { first, count, revisions: options.revisions, last: first + BigInt(options.revisions * count) - 1n };
  const columns = await database.run(async (db) =>
    (await sql<{ column_name: string }>`SELECT column_name FROM information_schema.columns WHERE table_name = 'cairn_events'`.execute(db)).rows.map(
      (r) => r.column_name,
    ),
  );
  const origins = columns.includes('operation');
  const step = BigInt(count).toString();
  for (let round = 1; round < options.revisions; round++) {
    const { from: source, object, uid } = revisionOf(round, step);
    for (let from = 0; from < count; from += batch) {
      const lo = revisionAt(history, from, round - 1).toString();
      const hi = revisionAt(history, Math.min(count, from + batch) - 1, round - 1).toString();
      await database.run((db) =>
        origins
          ? sql`INSERT INTO cairn_events (resource_version, resource, namespace, name, type, labels, fields, prev_labels, prev_fields, object, prev_object, uid, operation, field_manager, username)
              SELECT e.resource_version + ${step}::bigint, e.resource, e.namespace, e.name, 'MODIFIED', e.labels, e.fields, e.labels, e.fields, ${object}, e.object,
                ${uid}, 'update', 'bench', 'bench-user'
              FROM ${source} WHERE e.resource_version BETWEEN ${lo}::bigint AND ${hi}::bigint AND e.resource = ${resource}`.execute(db)
          : sql`INSERT INTO cairn_events (resource_version, resource, namespace, name, type, labels, fields, prev_labels, prev_fields, object, prev_object)
              SELECT e.resource_version + ${step}::bigint, e.resource, e.namespace, e.name, 'MODIFIED', e.labels, e.fields, e.labels, e.fields, ${object}, e.object
              FROM ${source} WHERE e.resource_version BETWEEN ${lo}::bigint AND ${hi}::bigint AND e.resource = ${resource}`.execute(db),
      );
      options.onProgress?.(round, Math.min(count, from + batch));
    }
  }
  await checkRevisions(database, history);
  const newest = options.revisions - 1;
  for (let from = 0; from < count; from += batch) {
    const lo = revisionAt(history, from, newest).toString();
    const hi = revisionAt(history, Math.min(count, from + batch) - 1, newest).toString();
    await database.run((db) =>
      sql`UPDATE cairn_objects o SET resource_version = e.resource_version, object = e.object
        FROM cairn_events e WHERE e.resource_version BETWEEN ${lo}::bigint AND ${hi}::bigint
          AND o.resource = e.resource AND o.namespace = e.namespace AND o.name = e.name`.execute(db),
    );
  }
  await database.run((db) => sql`UPDATE cairn_resource_version SET current = ${history.last.toString()}::bigint WHERE id = 1`.execute(db));
  // As after seedPipelines: the planner's statistics, and no autovacuum pass during the measurements.
  await database.run((db) => sql`VACUUM (ANALYZE)`.execute(db));
  return history;
}

/**
 * Revision `round` of an object with its resourceVersion (`newVersion`, in SQL over the
 * event `e` before it), from `value`, its revision before as jsonb: what the write path
 * would log for an update that set the annotation.
 */
const revised = (value: RawBuilder<unknown>, newVersion: RawBuilder<unknown>, round: number): RawBuilder<string> =>
  sql<string>`jsonb_set(jsonb_set(${value}, '{metadata,resourceVersion}', to_jsonb((${newVersion})::text)),
    '{metadata,annotations}', coalesce(${value} #> '{metadata,annotations}', '{}') || jsonb_build_object('bench.cairn.dev/revision', ${String(round)}::text))::text`;

const versionKey = '"resourceVersion": "';
const revisionKey = '"bench.cairn.dev/revision": "';

/**
 * How round `round` reads the events `e` of the round before and writes each one's next
 * revision and uid. Round 1 reads the text the API wrote and parses it, once a row (OFFSET 0
 * keeps the parse a subquery of its own rather than inlined at each use). Later rounds read
 * text that jsonb itself wrote, in which the two changed values are replaced where they
 * stand: jsonb orders an object's keys by the keys alone, so the text is what jsonb_set
 * would write (checkRevisions checks it), without the parse and the two copies that took
 * three quarters of a round's time.
 */
function revisionOf(round: number, step: string): { from: RawBuilder<unknown>; object: RawBuilder<string>; uid: RawBuilder<string> } {
  if (round === 1)
    return {
      from: sql`cairn_events e CROSS JOIN LATERAL (SELECT e.object::jsonb AS value OFFSET 0) p`,
      object: revised(sql`p.value`, sql`e.resource_version + ${step}::bigint`, round),
      uid: sql<string>`p.value #>> '{metadata,uid}'`,
    };
  return {
    from: sql`cairn_events e`,
    object: sql<string>`replace(replace(e.object,
        ${versionKey} || e.resource_version::text || '"', ${versionKey} || (e.resource_version + ${step}::bigint)::text || '"'),
        ${`${revisionKey}${round - 1}"`}, ${`${revisionKey}${round}"`})`,
    uid: sql<string>`e.uid`,
  };
}

/** Fails the seeding unless the first 100 events of each round after the first are what jsonb_set writes from their prior states. */
async function checkRevisions(database: Database, history: SeededHistory): Promise<void> {
  for (let round = 2; round < history.revisions; round++) {
    const lo = revisionAt(history, 0, round).toString();
    const hi = revisionAt(history, Math.min(history.count, 100) - 1, round).toString();
    const [differing] = await database.run(
      async (db) =>
        (
          await sql<{ n: string }>`SELECT count(*)::text AS n FROM cairn_events e
            WHERE e.resource_version BETWEEN ${lo}::bigint AND ${hi}::bigint
              AND e.object IS DISTINCT FROM ${revised(sql`e.prev_object::jsonb`, sql`e.resource_version`, round)}`.execute(db)
        ).rows,
    );
    if (differing.n !== '0') throw new Error(`round ${round} of the seeded history wrote ${differing.n} of its first 100 objects unlike jsonb_set`);
  }
}
