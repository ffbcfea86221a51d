/**
 * The statements on the object table, one row per object. A write names the
 * resourceVersion it read: the row changes only while it is still at that version
 * (compare-and-swap), and the caller starts over when it is not.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { StoredObject } from '../machinery/meta/object.js';
import type { StorageKey } from './interfaces.js';
import type { StorageSchema, StringMap } from './schema.js';
import { decodeText, encodeJsonb, encodeText } from './stored-text.js';

type Queryable = Kysely<StorageSchema> | Transaction<StorageSchema>;

/** Which row: a resource (`pipelines.cairn.dev`) and the object's namespace and name. */
export interface ObjectRowKey {
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
}

/** What a write stores in a row: the object, at `rv`, and its labels and fields for selection. */
export interface ObjectRowValues {
  readonly rv: bigint;
  readonly labels: StringMap;
  readonly fields: StringMap;
  readonly object: StoredObject;
}

/** The object in the row, or undefined when there is none. */
export async function readObject(db: Queryable, at: ObjectRowKey): Promise<StoredObject | undefined> {
  const row = await db
    .selectFrom('cairn_objects')
    .select('object')
    .where('resource', '=', at.resource)
    .where('namespace', '=', encodeText(at.namespace))
    .where('name', '=', encodeText(at.name))
    .executeTakeFirst();
  return row?.object as StoredObject | undefined;
}

/**
 * Locks the row until the transaction ends and returns its object; undefined when
 * there is no row or, with `resourceVersion`, when the row is no longer at it (a
 * write that committed while this one waited for the lock counts).
 */
export async function lockObject(trx: Transaction<StorageSchema>, at: ObjectRowKey, resourceVersion?: string): Promise<StoredObject | undefined> {
  let query = trx
    .selectFrom('cairn_objects')
    .select('object')
    .where('resource', '=', at.resource)
    .where('namespace', '=', encodeText(at.namespace))
    .where('name', '=', encodeText(at.name));
  if (resourceVersion !== undefined) query = query.where('resource_version', '=', resourceVersion);
  const row = await query.forUpdate().executeTakeFirst();
  return row?.object as StoredObject | undefined;
}

/** Inserts the row; false when one exists already. */
export async function insertObject(trx: Transaction<StorageSchema>, at: ObjectRowKey, values: ObjectRowValues): Promise<boolean> {
  const inserted = await trx
    .insertInto('cairn_objects')
    .values({
      resource: at.resource,
      namespace: encodeText(at.namespace),
      name: encodeText(at.name),
      uid: String(values.object.metadata.uid),
      resource_version: values.rv.toString(),
      api_version: encodeText(values.object.apiVersion),
      labels: encodeJsonb(values.labels),
      fields: encodeJsonb(values.fields),
      object: encodeJsonb(values.object),
    })
    .onConflict((oc) => oc.doNothing())
    .returning('name')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Replaces the row's object if the row is still at `expected`; false when it is not. */
export async function updateObject(trx: Transaction<StorageSchema>, at: ObjectRowKey, expected: string, values: ObjectRowValues): Promise<boolean> {
  const updated = await trx
    .updateTable('cairn_objects')
    .set({
      resource_version: values.rv.toString(),
      api_version: encodeText(values.object.apiVersion),
      labels: encodeJsonb(values.labels),
      fields: encodeJsonb(values.fields),
      object: encodeJsonb(values.object),
    })
    .where('resource', '=', at.resource)
    .where('namespace', '=', encodeText(at.namespace))
    .where('name', '=', encodeText(at.name))
    .where('resource_version', '=', expected)
    .executeTakeFirst();
  return updated.numUpdatedRows > 0n;
}

/** Deletes the row if it is still at `expected`; false when it is not. */
export async function deleteObject(trx: Transaction<StorageSchema>, at: ObjectRowKey, expected: string): Promise<boolean> {
  const deleted = await trx
    .deleteFrom('cairn_objects')
    .where('resource', '=', at.resource)
    .where('namespace', '=', encodeText(at.namespace))
    .where('name', '=', encodeText(at.name))
    .where('resource_version', '=', expected)
    .executeTakeFirst();
  return deleted.numDeletedRows > 0n;
}

/** Up to `limit` keys of `resource`'s rows not encoded in `apiVersion`, in key order, after `after`. */
export async function readStaleKeys(db: Queryable, resource: string, apiVersion: string, after: StorageKey | undefined, limit: number): Promise<StorageKey[]> {
  let query = db.selectFrom('cairn_objects').select(['namespace', 'name']).where('resource', '=', resource).where('api_version', '<>', encodeText(apiVersion));
  // Spelled with the resource in front so the primary key index serves the range.
  if (after) query = query.where(sql<boolean>`(resource, namespace, name) > (${resource}, ${encodeText(after.namespace)}, ${encodeText(after.name)})`);
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
