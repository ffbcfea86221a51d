/**
 * Reading one object's revisions from the event log, newest first, a page at a time
 * (the `history` subresource), in one snapshot.
 *
 * What bounds a read: a page is one backward range scan of the index on
 * `(resource, namespace, name, resource_version)` from `before`, stopped by its limit,
 * so it reads `limit + 1` index entries whatever the size of the log or the resource.
 * A read by uid (one incarnation of a name deleted and created again) first finds the
 * incarnation's ADDED and DELETED events in the partial index of those (migration
 * 0010: two entries per incarnation) and scans only between them, so it reads no row
 * of another incarnation where both are retained. Where compaction removed the ADDED
 * event, it had removed every older incarnation's events too (it removes in
 * resourceVersion order, and keeps only live objects' newest); where the DELETED event
 * is not there, the incarnation is the live one, and no newer one exists: the scan
 * still reads nothing of another incarnation.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { StoredObject } from '../machinery/meta/object.js';
import type { Database } from './database.js';
import { readCurrentResourceVersion, readResourceCompacted } from './event-log.js';
import type { HistoryRequest, Revision, StorageKey, WriteOperation } from './interfaces.js';
import type { StorageSchema } from './schema.js';
import { decodeJsonb, decodeText, encodeText } from './stored-text.js';

/** A page of revisions as read, before their objects are converted to the storage version. */
export interface HistoryRows {
  readonly revisions: readonly Revision[];
  readonly continueBefore?: string;
  readonly current: bigint;
  readonly compacted: bigint;
}

/** The resourceVersions one incarnation's events lie within (inclusive); either end open when unknown. */
export interface Incarnation {
  readonly from?: string;
  readonly through?: string;
}

type Queryable = Kysely<StorageSchema> | Transaction<StorageSchema>;

/** The ADDED and DELETED events of the object with `uid` at `key`: at most two rows, from the partial index of those (exported for the test that reads its plan). */
export function incarnationEndsQuery(db: Queryable, resource: string, key: StorageKey, uid: string) {
  return db
    .selectFrom('cairn_events')
    .select(['resource_version', 'type'])
    .where('uid', '=', encodeText(uid))
    .where('type', '<>', 'MODIFIED')
    .where('resource', '=', resource)
    .where('namespace', '=', encodeText(key.namespace))
    .where('name', '=', encodeText(key.name));
}

/**
 * Where the incarnation with `uid` lies among the key's events; undefined when nothing
 * of it is retained.
 */
async function findIncarnation(trx: Transaction<StorageSchema>, resource: string, key: StorageKey, uid: string): Promise<Incarnation | undefined> {
  const ends = await incarnationEndsQuery(trx, resource, key, uid).execute();
  const from = ends.find((e) => e.type === 'ADDED')?.resource_version;
  const through = ends.find((e) => e.type === 'DELETED')?.resource_version;
  if (from !== undefined || through !== undefined) return { from: from && String(from), through: through && String(through) };
  // Neither end retained: the live object, created before the retained log, or nothing.
  const live = await trx
    .selectFrom('cairn_objects')
    .select('uid')
    .where('resource', '=', resource)
    .where('namespace', '=', encodeText(key.namespace))
    .where('name', '=', encodeText(key.name))
    .executeTakeFirst();
  return live?.uid === encodeText(uid) ? {} : undefined;
}

/**
 * One page of the key's events, newest first: `limit + 1` of them at most (the one
 * past the limit says more follow), within `incarnation` (exported for the test that
 * reads its plan).
 */
export function historyPageQuery(db: Queryable, resource: string, key: StorageKey, request: HistoryRequest, incarnation: Incarnation = {}) {
  let query = db
    .selectFrom('cairn_events')
    .select(['resource_version', 'type', 'created_at', 'operation', 'subresource', 'field_manager', 'username', 'object'])
    .where('resource', '=', resource)
    .where('namespace', '=', encodeText(key.namespace))
    .where('name', '=', encodeText(key.name));
  if (request.before !== undefined) query = query.where('resource_version', '<', request.before);
  if (incarnation.from !== undefined) query = query.where('resource_version', '>=', incarnation.from);
  if (incarnation.through !== undefined) query = query.where('resource_version', '<=', incarnation.through);
  // An event an older release wrote (a replica not yet upgraded) has no uid column: its object's is read instead.
  if (request.uid !== undefined) query = query.where(sql<string>`COALESCE(uid, object::jsonb #>> '{metadata,uid}')`, '=', encodeText(request.uid));
  return query.orderBy('resource_version', 'desc').limit(request.limit + 1);
}

/** Reads a page of the revisions of `key` in `resource`, newest first. */
export async function readHistory(database: Database, resource: string, key: StorageKey, request: HistoryRequest): Promise<HistoryRows> {
  return database.transaction(
    async (trx) => {
      const current = await readCurrentResourceVersion(trx);
      // The resource's compaction mark: its own where a longer retention keeps its events past the log's, the log's otherwise.
      const compacted = await readResourceCompacted(trx, resource);
      const incarnation = request.uid === undefined ? {} : await findIncarnation(trx, resource, key, request.uid);
      if (incarnation === undefined) return { revisions: [], current, compacted };
      const rows = await historyPageQuery(trx, resource, key, request, incarnation).execute();
      const more = rows.length > request.limit;
      const revisions = rows.slice(0, request.limit).map(revisionOf);
      return { revisions, current, compacted, ...(more ? { continueBefore: revisions.at(-1)!.resourceVersion } : {}) };
    },
    { snapshot: true },
  );
}

/** One event row as a revision, its object as written (maybe in an older version). */
function revisionOf(row: {
  resource_version: string;
  type: Revision['type'];
  created_at: Date;
  operation: string | null;
  subresource: string | null;
  field_manager: string | null;
  username: string | null;
  object: string;
}): Revision {
  const object = decodeJsonb(row.object) as StoredObject;
  const origin =
    row.operation === null
      ? undefined
      : {
          operation: row.operation as WriteOperation,
          subresource: decodeText(row.subresource ?? ''),
          fieldManager: decodeText(row.field_manager ?? ''),
          user: decodeText(row.username ?? ''),
        };
  return {
    resourceVersion: String(row.resource_version),
    type: row.type,
    time: new Date(row.created_at),
    ...(origin ? { origin } : {}),
    object,
  };
}
