/**
 * Lists at a resourceVersion, one keyed page at a time.
 *
 * The state at resourceVersion R is: the live objects last written at or before R,
 * plus, for each object changed after R, the prior state carried by its first event
 * after R (unless that event created it). That needs the log only back to R, so a
 * page costs one query over the objects' key index plus the events after R — never
 * a full-table load, never OFFSET.
 */
import { sql, type Transaction } from 'kysely';
import type { StoredObject } from '../machinery/meta/object.js';
import type { SelectionPredicate, StorageKey } from './interfaces.js';
import type { StorageSchema } from './schema.js';
import { fieldSelectorSql, labelSelectorSql } from './selector-sql.js';
import { decodeText, encodeText } from './stored-text.js';

/** One page to read. */
export interface SnapshotPageRequest {
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly predicate: SelectionPredicate;
  readonly resourceVersion: bigint;
  readonly after?: StorageKey;
  readonly limit?: number;
  readonly countRemaining?: boolean;
}

/** One page read. */
export interface SnapshotPage {
  readonly items: readonly StoredObject[];
  readonly continueAfter?: StorageKey;
  readonly remainingItemCount?: number;
}

type Trx = Transaction<StorageSchema>;

function selected<Q extends { where: (cond: ReturnType<typeof labelSelectorSql>) => Q }>(query: Q, predicate: SelectionPredicate): Q {
  let q = query;
  if (predicate.labelSelector?.length) q = q.where(labelSelectorSql(predicate.labelSelector));
  if (predicate.fieldSelector?.length) q = q.where(fieldSelectorSql(predicate.fieldSelector));
  return q;
}

/** Every (namespace, name, object) of the snapshot after the start key, unordered. */
function snapshotRows(trx: Trx, r: SnapshotPageRequest) {
  const rv = r.resourceVersion.toString();
  let live = trx
    .selectFrom('cairn_objects')
    .select(['namespace', 'name', sql<unknown>`object`.as('object')])
    .where('resource', '=', r.resource)
    .where('resource_version', '<=', rv);
  // Keys are compared in their stored form, which a continue token's may not be in yet.
  const namespace = r.namespace === undefined ? undefined : encodeText(r.namespace);
  const after = r.after && { namespace: encodeText(r.after.namespace), name: encodeText(r.after.name) };
  if (namespace !== undefined) live = live.where('namespace', '=', namespace);
  // Spelled with the resource in front so the primary key index serves the range.
  if (after) live = live.where(sql<boolean>`(resource, namespace, name) > (${r.resource}, ${after.namespace}, ${after.name})`);
  live = selected(live, r.predicate);

  let firstChange = trx
    .selectFrom('cairn_events')
    .distinctOn(['namespace', 'name'])
    .select([
      'namespace',
      'name',
      'type',
      sql<unknown>`prev_object`.as('object'),
      sql`coalesce(prev_labels, labels)`.as('labels'),
      sql`coalesce(prev_fields, fields)`.as('fields'),
    ])
    .where('resource', '=', r.resource)
    .where('resource_version', '>', rv);
  if (namespace !== undefined) firstChange = firstChange.where('namespace', '=', namespace);
  if (after) firstChange = firstChange.where(sql<boolean>`(namespace, name) > (${after.namespace}, ${after.name})`);
  const changed = selected(
    trx
      .selectFrom(firstChange.orderBy('namespace').orderBy('name').orderBy('resource_version').as('first_change'))
      .select(['namespace', 'name', 'object'])
      .where('type', '<>', 'ADDED'),
    r.predicate,
  );
  return live.unionAll(changed);
}

/** Reads one page of the snapshot inside `trx`, which must be a snapshot transaction. */
export async function readSnapshotPage(trx: Trx, r: SnapshotPageRequest): Promise<SnapshotPage> {
  let page = trx.selectFrom(snapshotRows(trx, r).as('snapshot')).select(['namespace', 'name', 'object']).orderBy('namespace').orderBy('name');
  if (r.limit !== undefined) page = page.limit(r.limit + 1);
  const rows = await page.execute();
  const more = r.limit !== undefined && rows.length > r.limit;
  const kept = more ? rows.slice(0, r.limit) : rows;
  const items = kept.map((row) => row.object as StoredObject);
  if (!more) return { items };
  const last = kept[kept.length - 1];
  const continueAfter = { namespace: decodeText(last.namespace), name: decodeText(last.name) };
  if (!r.countRemaining) return { items, continueAfter };
  const counted = await trx
    .selectFrom(snapshotRows(trx, { ...r, after: continueAfter }).as('snapshot'))
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .executeTakeFirstOrThrow();
  return { items, continueAfter, remainingItemCount: Number(counted.count) };
}
