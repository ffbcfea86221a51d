/**
 * Seeding an object history for the history bench (issue 26 item 5): after
 * bench/seed.ts wrote each Pipeline and its ADDED event, every Pipeline is updated
 * `revisions - 1` times in rounds (round r updates every object once, in the order they
 * were created), each update a MODIFIED event with its prior state, as the write path
 * logs one, and the object's row left at its newest revision. The events are written
 * by PostgreSQL from the round before (`INSERT … SELECT` over a range of resourceVersions,
 * a batch of objects per statement), so a history of ten million events takes minutes
 * and never passes through this process. Each object of the round before is parsed once
 * (its text into jsonb, the seeding's main cost) for the new revision and its uid.
 */
import { sql } from 'kysely';
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
  const step = BigInt(count);
  for (let round = 1; round < options.revisions; round++) {
    for (let from = 0; from < count; from += batch) {
      const lo = revisionAt(history, from, round - 1).toString();
      const hi = revisionAt(history, Math.min(count, from + batch) - 1, round - 1).toString();
      const object = sql`jsonb_set(jsonb_set(p.value, '{metadata,resourceVersion}', to_jsonb((e.resource_version + ${step.toString()}::bigint)::text)),
        '{metadata,annotations}', coalesce(p.value #> '{metadata,annotations}', '{}') || jsonb_build_object('bench.cairn.dev/revision', ${String(round)}::text))::text`;
      // OFFSET 0 keeps the parse a subquery of its own, evaluated once a row, rather than inlined at each use.
      const previous = sql`cairn_events e CROSS JOIN LATERAL (SELECT e.object::jsonb AS value OFFSET 0) p`;
      await database.run((db) =>
        origins
          ? sql`INSERT INTO cairn_events (resource_version, resource, namespace, name, type, labels, fields, prev_labels, prev_fields, object, prev_object, uid, operation, field_manager, username)
              SELECT e.resource_version + ${step.toString()}::bigint, e.resource, e.namespace, e.name, 'MODIFIED', e.labels, e.fields, e.labels, e.fields, ${object}, e.object,
                p.value #>> '{metadata,uid}', 'update', 'bench', 'bench-user'
              FROM ${previous} WHERE e.resource_version BETWEEN ${lo}::bigint AND ${hi}::bigint AND e.resource = ${resource}`.execute(db)
          : sql`INSERT INTO cairn_events (resource_version, resource, namespace, name, type, labels, fields, prev_labels, prev_fields, object, prev_object)
              SELECT e.resource_version + ${step.toString()}::bigint, e.resource, e.namespace, e.name, 'MODIFIED', e.labels, e.fields, e.labels, e.fields, ${object}, e.object
              FROM ${previous} WHERE e.resource_version BETWEEN ${lo}::bigint AND ${hi}::bigint AND e.resource = ${resource}`.execute(db),
      );
      options.onProgress?.(round, Math.min(count, from + batch));
    }
  }
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
