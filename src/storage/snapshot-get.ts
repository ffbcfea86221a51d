/**
 * Reads one object as it was at a resourceVersion (a get with
 * `resourceVersionMatch=Exact`), in one statement of two index reads: the object's
 * row when it was last written at or before R (primary key), else the key's first
 * event after R (`cairn_events_resource_key`), whose prior state is the object at R,
 * unless that event created it (then there was none at R). Those two are the only
 * places the state at R can be: a row written at or before R has no event after R,
 * and an object changed after R has one. Neither read grows with the objects or with
 * the history kept; the statement carries the bounds of the history it was read
 * within, in its own snapshot, for the caller to refuse an R outside them.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { StoredObject } from '../machinery/meta/object.js';
import { resourceCompactedSql } from './event-log.js';
import type { StorageKey } from './interfaces.js';
import type { StorageSchema } from './schema.js';
import { decodeJsonb, encodeText } from './stored-text.js';

/** What a read of one object at a resourceVersion found, with the bounds of the history it was read in. */
export interface ObjectAt {
  /** The object at the resourceVersion; undefined when there was none. */
  readonly object: StoredObject | undefined;
  /** The newest committed resourceVersion: the state at a later one does not exist yet. */
  readonly current: bigint;
  /** The newest resourceVersion compaction dropped of the resource's events: the state at an earlier one may be gone. */
  readonly compacted: bigint;
}

/** A row of the statement: the bounds, and the state found (nulls when none was). */
interface ObjectAtRow {
  readonly current: string;
  readonly compacted: string;
  readonly created: boolean | null;
  readonly object: string | null;
}

/** The statement (exported for the test that reads its plan). */
export function objectAtStatement(resource: string, key: StorageKey, resourceVersion: bigint): RawBuilder<ObjectAtRow> {
  const [namespace, name, rv] = [encodeText(key.namespace), encodeText(key.name), resourceVersion.toString()];
  return sql<ObjectAtRow>`SELECT b.current::text AS current, b.compacted::text AS compacted, s.created, s.object
    FROM (SELECT (SELECT current FROM cairn_resource_version WHERE id = 1) AS current, ${resourceCompactedSql(resource)} AS compacted) b
    LEFT JOIN LATERAL (
      (SELECT false AS created, object FROM cairn_objects
       WHERE resource = ${resource} AND namespace = ${namespace} AND name = ${name} AND resource_version <= ${rv}::bigint)
      UNION ALL
      (SELECT type = 'ADDED' AS created, prev_object AS object FROM cairn_events
       WHERE resource = ${resource} AND namespace = ${namespace} AND name = ${name} AND resource_version > ${rv}::bigint
       ORDER BY resource_version LIMIT 1)
    ) s ON true`;
}

/** Reads the object at `key` as it was at `resourceVersion`, with the history's bounds: one round trip. */
export async function readObjectAt(db: Kysely<StorageSchema>, resource: string, key: StorageKey, resourceVersion: bigint): Promise<ObjectAt> {
  const { rows } = await objectAtStatement(resource, key, resourceVersion).execute(db);
  const bounds = { current: BigInt(rows[0].current), compacted: BigInt(rows[0].compacted) };
  const found = rows.find((row) => row.created === false && row.object !== null);
  return { object: found ? (decodeJsonb(found.object!) as StoredObject) : undefined, ...bounds };
}
