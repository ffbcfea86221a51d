/**
 * The statements on the object table, one row per object, besides the writes (those
 * go in batches: write-batch-statement.ts).
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { deepFreeze, type StoredObject } from '../machinery/meta/object.js';
import type { StorageKey } from './interfaces.js';
import type { Database } from './database.js';
import { readCurrentResourceVersion } from './event-log.js';
import type { ObjectSnapshot } from './object-cache.js';
import type { StorageSchema } from './schema.js';
import { decodeJsonb, decodeText, encodeText } from './stored-text.js';

type Queryable = Kysely<StorageSchema> | Transaction<StorageSchema>;

/** Which row: a resource (`pipelines.cairn.dev`) and the object's namespace and name. */
export interface ObjectRowKey {
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
}

/** The statement of a read by key: one row of the primary key (exported for the test that reads its plan). */
export const readObjectStatement = 'SELECT object FROM cairn_objects WHERE resource = $1 AND namespace = $2 AND name = $3';

/** The object in the row, or undefined when there is none: one prepared statement, no query builder. */
export async function readObject(database: Database, at: ObjectRowKey): Promise<StoredObject | undefined> {
  const rows = await database.query(readObjectStatement, [at.resource, encodeText(at.namespace), encodeText(at.name)], 'cairn-read-object');
  const text = rows[0]?.object as string | undefined;
  return text === undefined ? undefined : (decodeJsonb(text) as StoredObject);
}

/** Up to `limit` keys of `resource`'s rows not encoded in `apiVersion`, in key order, after `after`. */
export async function readStaleKeys(db: Queryable, resource: string, apiVersion: string, after: StorageKey | undefined, limit: number): Promise<StorageKey[]> {
  let query = db.selectFrom('cairn_objects').select(['namespace', 'name']).where('resource', '=', resource).where('api_version', '<>', encodeText(apiVersion));
  // Beside the resource's equality, so the primary key index starts at the key (a comparison of all three columns walks the resource up to it).
  if (after) query = query.where(sql<boolean>`(namespace, name) > (${encodeText(after.namespace)}, ${encodeText(after.name)})`);
  const rows = await query.orderBy('namespace').orderBy('name').limit(limit).execute();
  return rows.map((row) => ({ namespace: decodeText(row.namespace), name: decodeText(row.name) }));
}

/** How many of `resource`'s rows are not encoded in `apiVersion`. */
export async function countStaleRows(db: Queryable, resource: string, apiVersion: string): Promise<number> {
  const row = await db
    .selectFrom('cairn_objects')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('resource', '=', resource)
    .where('api_version', '<>', encodeText(apiVersion))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

const noLabels = Object.freeze({});

/** How many objects `resource` has: the counts kept per namespace (migration 0005), not a count of its rows. */
export async function countObjectsOf(db: Queryable, resource: string): Promise<number> {
  const row = await db
    .selectFrom('cairn_object_counts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('count'), sql<string>`0`).as('count'))
    .where('resource', '=', resource)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Every object of `resource`, frozen, with the resourceVersion they are exactly at:
 * one snapshot transaction, which holds every write up to the counter it reads and
 * none after (writes commit in resourceVersion order). What an object cache loads;
 * undefined, having read no object, when there are more than `limit`.
 */
export async function loadObjects(database: Database, resource: string, limit: number): Promise<ObjectSnapshot | undefined> {
  return database.transaction(
    async (trx) => {
      const resourceVersion = await readCurrentResourceVersion(trx);
      if ((await countObjectsOf(trx, resource)) > limit) return undefined;
      const rows = await trx
        .selectFrom('cairn_objects')
        .select(['namespace', 'name', 'fields', 'object'])
        .where('resource', '=', resource)
        .orderBy('namespace')
        .orderBy('name')
        .execute();
      const objects = rows.map((row) => {
        const object = deepFreeze(decodeJsonb(row.object) as StoredObject);
        // The labels column holds the object's labels: selectors read them where they are, not a second copy.
        const labels = object.metadata.labels ?? noLabels;
        return Object.freeze({ namespace: decodeText(row.namespace), name: decodeText(row.name), labels, fields: deepFreeze(row.fields), object });
      });
      return { resourceVersion, objects };
    },
    { snapshot: true },
  );
}
