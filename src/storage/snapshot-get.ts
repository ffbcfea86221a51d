/**
 * Reads one object as it was at a resourceVersion (a get with
 * `resourceVersionMatch=Exact`), in one prepared statement of at most two index reads:
 * the key's first event after R (`cairn_events_resource_key`), whose prior state is the
 * object at R, unless that event created it (then there was none at R); only when there
 * is no such event, the object's row, which was then last written at or before R
 * (primary key). Those two are the only places the state at R can be: a row written at
 * or before R has no event after R, and an object changed after R has one. The row is
 * not read when the event answers (a cold read of the past costs one index descent and
 * one heap page, not two of each). Neither read grows with the objects or with the
 * history kept; the statement carries the bounds of the history it was read within, in
 * its own snapshot, for the caller to refuse an R outside them.
 */
import type { StoredObject } from '../machinery/meta/object.js';
import type { Database } from './database.js';
import { resourceCompactedText } from './event-log.js';
import type { StorageKey } from './interfaces.js';
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

/**
 * The statement (exported for the test that reads its plan): $1 the resource, $2 and
 * $3 the stored namespace and name, $4 the resourceVersion. One row: `created` is true
 * when the key's first change after R created it, and `object` is null when the key had
 * no state to find. The row's read is gated on the event's absence, which PostgreSQL
 * checks before the read (a one-time filter) as long as the subquery is not merged into
 * the join: its LIMIT keeps it apart.
 */
export const readObjectAtStatement = `SELECT b.current::text AS current, b.compacted::text AS compacted,
  coalesce(e.created, false) AS created, coalesce(e.object, o.object) AS object
FROM (SELECT (SELECT current FROM cairn_resource_version WHERE id = 1) AS current, ${resourceCompactedText('$1')} AS compacted) b
LEFT JOIN LATERAL (
  SELECT type = 'ADDED' AS created, prev_object AS object FROM cairn_events
  WHERE resource = $1 AND namespace = $2 AND name = $3 AND resource_version > $4::bigint
  ORDER BY resource_version LIMIT 1
) e ON true
LEFT JOIN LATERAL (
  SELECT object FROM cairn_objects
  WHERE e.created IS NULL AND resource = $1 AND namespace = $2 AND name = $3 AND resource_version <= $4::bigint
  LIMIT 1
) o ON true`;

/** Reads the object at `key` as it was at `resourceVersion`, with the history's bounds: one round trip. */
export async function readObjectAt(database: Database, resource: string, key: StorageKey, resourceVersion: bigint): Promise<ObjectAt> {
  const rows = await database.query(
    readObjectAtStatement,
    [resource, encodeText(key.namespace), encodeText(key.name), resourceVersion.toString()],
    'cairn-read-object-at',
  );
  const bounds = { current: BigInt(rows[0].current as string), compacted: BigInt(rows[0].compacted as string) };
  const [row] = rows;
  return { object: row.created === false && row.object !== null ? (decodeJsonb(row.object as string) as StoredObject) : undefined, ...bounds };
}
