/**
 * Lists at a resourceVersion, one keyed page at a time.
 *
 * The state at resourceVersion R is: the live objects last written at or before R,
 * plus, for each object changed after R, the prior state carried by its first event
 * after R (unless that event created it). The two sets are disjoint (a live row at or
 * before R has no event after R), so a page is the first `limit` keys of their union,
 * and each side needs no more than its own first `limit` keys: the live side is a
 * range of the primary key read in key order that stops at the page's end (or, for a
 * selective selector, a bitmap scan of the selector's GIN index and a sort of its
 * matches), the changed side a range of the event log after R. Neither grows with the
 * number of objects; the changed side grows with the writes since R, which the
 * retention window bounds. Never a full-table read, never OFFSET.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { resourceCompactedSql } from './event-log.js';
import type { SelectionPredicate, StorageKey } from './interfaces.js';
import type { StorageSchema } from './schema.js';
import { fieldSelectorSql, labelSelectorSql } from './selector-sql.js';
import { decodeJsonb, decodeJsonbText, decodeText, encodeText } from './stored-text.js';

/** One page to read. */
export interface SnapshotPageRequest {
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly predicate: SelectionPredicate;
  readonly resourceVersion: bigint;
  readonly after?: StorageKey;
  readonly limit?: number;
  /** Count the items after a first page (no `after`, no selector): from the object counts, not the rows. */
  readonly countRemaining?: boolean;
  /** Read each object as its stored text, unparsed, rather than as a value. */
  readonly text?: boolean;
}

/** One item of a page: its object (a value, or its stored text), and the apiVersion it is encoded in. */
export interface PageItem {
  readonly object: unknown;
  readonly apiVersion: string;
}

/** One page read, and the bounds of the history the statement that read it saw. */
export interface SnapshotPage {
  readonly items: readonly PageItem[];
  readonly continueAfter?: StorageKey;
  readonly remainingItemCount?: number;
  /** The newest committed resourceVersion: a page at a later one read a state that does not exist yet. */
  readonly current: bigint;
  /** The newest resourceVersion compaction dropped of the resource's events: a page at an earlier one may have missed prior states. */
  readonly compacted: bigint;
}

const and = (conditions: readonly RawBuilder<boolean>[]): RawBuilder<boolean> =>
  conditions.length === 0 ? sql<boolean>`true` : sql<boolean>`${sql.join(conditions, sql` AND `)}`;

/** The selector's conditions on rows with `namespace`, `labels` and `fields` columns. */
function selection(predicate: SelectionPredicate): RawBuilder<boolean>[] {
  return [
    ...(predicate.labelSelector?.length ? [labelSelectorSql(predicate.labelSelector)] : []),
    ...(predicate.fieldSelector?.length ? [fieldSelectorSql(predicate.fieldSelector, 'fields', 'namespace')] : []),
  ];
}

/** The page's scope in stored form (a continue token's key may not be in it yet): namespace and start key. */
function scope(r: SnapshotPageRequest): { namespace?: string; after?: { namespace: string; name: string } } {
  return {
    ...(r.namespace !== undefined ? { namespace: encodeText(r.namespace) } : {}),
    ...(r.after ? { after: { namespace: encodeText(r.after.namespace), name: encodeText(r.after.name) } } : {}),
  };
}

/** The page: the first `limit` keys of the live rows and of the first changes, each side limited on its own. */
function pageQuery(r: SnapshotPageRequest): RawBuilder<{ namespace: string; name: string; object: string; api_version: string }> {
  const rv = r.resourceVersion.toString();
  const { namespace, after } = scope(r);
  const limit = r.limit === undefined ? sql`` : sql`LIMIT ${r.limit + 1}`;
  const live = and([
    sql<boolean>`resource = ${r.resource}`,
    sql<boolean>`resource_version <= ${rv}::bigint`,
    ...(namespace !== undefined ? [sql<boolean>`namespace = ${namespace}`] : []),
    // Beside the resource's equality, so the primary key index starts at the key: a comparison of all three
    // columns, (resource, namespace, name) > (…), makes PostgreSQL walk the resource from its start up to it.
    ...(after ? [sql<boolean>`(namespace, name) > (${after.namespace}, ${after.name})`] : []),
    ...selection(r.predicate),
  ]);
  const changes = and([
    sql<boolean>`resource = ${r.resource}`,
    sql<boolean>`resource_version > ${rv}::bigint`,
    ...(namespace !== undefined ? [sql<boolean>`namespace = ${namespace}`] : []),
    ...(after ? [sql<boolean>`(namespace, name) > (${after.namespace}, ${after.name})`] : []),
  ]);
  return sql`
    SELECT namespace, name, object, api_version FROM (
      (SELECT namespace, name, object, api_version FROM cairn_objects WHERE ${live} ORDER BY namespace, name ${limit})
      UNION ALL
      (SELECT namespace, name, object, object::jsonb->>'apiVersion' AS api_version FROM (
         SELECT DISTINCT ON (namespace, name) namespace, name, type, prev_object AS object,
                coalesce(prev_labels, labels) AS labels, coalesce(prev_fields, fields) AS fields
         FROM cairn_events WHERE ${changes}
         ORDER BY namespace, name, resource_version
       ) first_change
       WHERE ${and([sql<boolean>`type <> 'ADDED'`, ...selection(r.predicate)])}
       ORDER BY namespace, name ${limit})
    ) page
    ORDER BY namespace, name ${limit}`;
}

/**
 * How many objects of the scope the snapshot at R holds: the counts kept per namespace
 * (the statement's, so a state at R or newer), corrected by the objects that changed
 * since R, each adding one if it existed at R (its first change since did not create
 * it) and taking one away if it exists now (its last change did not delete it).
 */
function totalQuery(r: SnapshotPageRequest): RawBuilder<string> {
  const { namespace } = scope(r);
  const inNamespace = namespace === undefined ? sql`` : sql`AND namespace = ${namespace}`;
  return sql<string>`(
      (SELECT coalesce(sum(count), 0) FROM cairn_object_counts WHERE resource = ${r.resource} ${inNamespace})
      + (SELECT coalesce(sum((first_type <> 'ADDED')::int - (last_type <> 'DELETED')::int), 0) FROM (
          SELECT (array_agg(type ORDER BY resource_version))[1] AS first_type, (array_agg(type ORDER BY resource_version DESC))[1] AS last_type
          FROM cairn_events WHERE resource = ${r.resource} AND resource_version > ${r.resourceVersion.toString()}::bigint ${inNamespace}
          GROUP BY namespace, name) changed)
    )::text`;
}

/** A page's row of the statement, or its bounds alone (with nulls) when the page is empty. */
interface PageRow {
  readonly current: string;
  readonly compacted: string;
  readonly total: string | null;
  readonly namespace: string | null;
  readonly name: string;
  readonly object: string;
  readonly api_version: string;
}

/**
 * The statement of one page of the snapshot at `r.resourceVersion`, which is one
 * snapshot of the database by itself: the page, the history's bounds it was read
 * within, and, for a first page without selectors, the count of the snapshot's objects
 * (exported for the test that reads its plans).
 */
export function snapshotPageStatement(r: SnapshotPageRequest): RawBuilder<PageRow> {
  const selective = Boolean(r.predicate.labelSelector?.length || r.predicate.fieldSelector?.length);
  const counted = r.countRemaining && !r.after && !selective && r.limit !== undefined;
  return sql<PageRow>`
    SELECT b.current::text AS current, b.compacted::text AS compacted, b.total, p.namespace, p.name, p.object, p.api_version
    FROM (SELECT (SELECT current FROM cairn_resource_version WHERE id = 1) AS current,
                 ${resourceCompactedSql(r.resource)} AS compacted,
                 ${counted ? totalQuery(r) : sql`NULL::text`} AS total) b
    LEFT JOIN LATERAL (${pageQuery(r)}) p ON true
    ORDER BY p.namespace, p.name`;
}

/**
 * Reads one page of the snapshot at `r.resourceVersion` in one statement, with the
 * bounds of the history the statement saw (the caller refuses a page at a
 * resourceVersion outside them). Any snapshot at or after R serves, since the rows
 * written after R are replaced by their prior states.
 */
export async function readSnapshotPage(db: Kysely<StorageSchema>, r: SnapshotPageRequest): Promise<SnapshotPage> {
  const { rows } = await snapshotPageStatement(r).execute(db);
  const bounds = { current: BigInt(rows[0].current), compacted: BigInt(rows[0].compacted) };
  const found = rows[0].namespace === null ? [] : rows;
  const more = r.limit !== undefined && found.length > r.limit;
  const kept = more ? found.slice(0, r.limit) : found;
  const items = kept.map((row) => ({ object: r.text ? decodeJsonbText(row.object) : decodeJsonb(row.object), apiVersion: row.api_version }));
  if (!more) return { items, ...bounds };
  const last = kept[kept.length - 1];
  const continueAfter = { namespace: decodeText(last.namespace!), name: decodeText(last.name) };
  const total = rows[0].total;
  return { items, continueAfter, ...(total !== null ? { remainingItemCount: Number(total) - items.length } : {}), ...bounds };
}
