/**
 * Reads one object as it was at a resourceVersion (a get with
 * `resourceVersionMatch=Exact`), in one prepared statement of two index reads: the
 * object's row when it was last written at or before R (primary key), else the key's
 * first event after R (`cairn_events_resource_key`), whose prior state is the object at
 * R, unless that event created it (then there was none at R). Those two are the only
 * places the state at R can be: a row written at or before R has no event after R,
 * and an object changed after R has one. Neither read grows with the objects or with
 * the history kept; the statement carries the bounds of the history it was read
 * within, in its own snapshot, for the caller to refuse an R outside them.
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
 * $3 the stored namespace and name, $4 the resourceVersion. One row, with nulls for
 * `created` and `object` when the key had no state to find.
 */
export const readObjectAtStatement = `SELECT b.current::text AS current, b.compacted::text AS compacted, s.created, s.object
FROM (SELECT (SELECT current FROM cairn_resource_version WHERE id = 1) AS current, ${resourceCompactedText('$1')} AS compacted) b
LEFT JOIN LATERAL (
  (SELECT false AS created, object FROM cairn_objects
   WHERE resource = $1 AND namespace = $2 AND name = $3 AND resource_version <= $4::bigint)
  UNION ALL
  (SELECT type = 'ADDED' AS created, prev_object AS object FROM cairn_events
   WHERE resource = $1 AND namespace = $2 AND name = $3 AND resource_version > $4::bigint
   ORDER BY resource_version LIMIT 1)
) s ON true`;

/** Reads the object at `key` as it was at `resourceVersion`, with the history's bounds: one round trip. */
export async function readObjectAt(database: Database, resource: string, key: StorageKey, resourceVersion: bigint): Promise<ObjectAt> {
  const rows = await database.query(
    readObjectAtStatement,
    [resource, encodeText(key.namespace), encodeText(key.name), resourceVersion.toString()],
    'cairn-read-object-at',
  );
  const bounds = { current: BigInt(rows[0].current as string), compacted: BigInt(rows[0].compacted as string) };
  const found = rows.find((row) => row.created === false && row.object !== null);
  return { object: found ? (decodeJsonb(found.object as string) as StoredObject) : undefined, ...bounds };
}
