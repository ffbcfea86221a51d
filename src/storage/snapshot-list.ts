/**
 * Lists at a resourceVersion, one keyed page at a time.
 *
 * The state at resourceVersion R is: the live objects last written at or before R,
 * plus, for each object changed after R, the prior state carried by its first event
 * after R (unless that event created it). A page is the first `limit` keys of that
 * state after the start key, and is one statement: one snapshot.
 *
 * Without a selector (or a namespace only: the common case, every continued page of
 * kubectl's and the informers' lists) a page costs a few index seeks per item, not the
 * history nor the object count: the live rows from the start key in key order, each
 * written after R resolved by one seek of its key's first event after R, and the keys
 * deleted since R that no live row stands for, from the DELETED events' index within
 * the page's range of keys (`keyedPageQuery`).
 *
 * With a label or field selector, a state at R that matched is found only through the
 * prior labels and fields on the event log: the page reads the live rows that match
 * (the selector's GIN bitmap, or the primary key) and the first change since R of every
 * key changed since R in the scope from the start key, so an Exact page with a selector
 * at an old R costs the writes since R in its scope, which the retention bounds
 * (`selectedPageQuery`). Never a full-table read, never OFFSET.
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

type PageRows = RawBuilder<{ namespace: string; name: string; object: string; api_version: string }>;

/** The key's first event after R (`k` names a row with `resource`, `namespace` and `name`), when `gate` holds: its type and the prior state it carries. */
function firstChangeAfter(k: string, rv: string, gate: RawBuilder<boolean> = sql<boolean>`true`): RawBuilder<{ type: string; prev_object: string | null }> {
  return sql`
    SELECT e.type, e.prev_object FROM cairn_events e
    WHERE ${gate} AND e.resource = ${sql.ref(`${k}.resource`)} AND e.namespace = ${sql.ref(`${k}.namespace`)} AND e.name = ${sql.ref(`${k}.name`)}
      AND e.resource_version > ${rv}::bigint
    ORDER BY e.resource_version LIMIT 1`;
}

/**
 * The page without a selector, a few index seeks per item. The live side reads the
 * primary key from the start key in key order, every row: a row written at or before
 * R is its state at R; a newer one is resolved by one seek for its key's first event
 * after R (its prior state, or absent when that event created it). The deleted side
 * walks the DELETED events' index (migration 0012) from the start key for keys deleted
 * since R that have no live row, each resolved by the same seek; when the live side
 * filled its page, only up to the live side's last key (a page ends there), so it
 * reads the deletes within the page's range of keys alone (on the last page, those of
 * the rest of the scope): those the retention keeps, whether before or after R.
 */
function keyedPageQuery(r: SnapshotPageRequest): PageRows {
  const rv = r.resourceVersion.toString();
  const { namespace, after } = scope(r);
  const limit = r.limit === undefined ? sql`` : sql`LIMIT ${r.limit + 1}`;
  const inScope = (k: string, from: RawBuilder<unknown> | undefined = after && sql`(${after.namespace}, ${after.name})`) => [
    sql<boolean>`${sql.ref(`${k}.resource`)} = ${r.resource}`,
    ...(namespace !== undefined ? [sql<boolean>`${sql.ref(`${k}.namespace`)} = ${namespace}`] : []),
    // Beside the resource's equality, so the index starts at the key: a comparison of all three
    // columns, (resource, namespace, name) > (…), makes PostgreSQL walk the resource from its start up to it.
    ...(from ? [sql<boolean>`(${sql.ref(`${k}.namespace`)}, ${sql.ref(`${k}.name`)}) > ${from}`] : []),
  ];
  const unchanged = sql<boolean>`o.resource_version <= ${rv}::bigint`;
  /** The next deleted key after `from` in the DELETED events' index: one descent of it. */
  const nextDeleted = (from?: RawBuilder<unknown>) => sql`
    SELECT d.resource, d.namespace, d.name FROM cairn_events d
    WHERE ${and([...inScope('d', from), sql<boolean>`d.type = 'DELETED'`])}
    ORDER BY d.namespace, d.name LIMIT 1`;
  // When the live side filled its page, the page ends at its last key: no deleted key past it can be in the page.
  const withinPage = (k: string) =>
    r.limit === undefined
      ? sql<boolean>`true`
      : sql<boolean>`((SELECT count(*) FROM live) <= ${r.limit}
          OR (${sql.ref(`${k}.namespace`)}, ${sql.ref(`${k}.name`)}) <= (SELECT namespace, name FROM live ORDER BY namespace DESC, name DESC LIMIT 1))`;
  return sql`
    WITH RECURSIVE live AS MATERIALIZED (
      SELECT o.namespace, o.name,
             CASE WHEN ${unchanged} THEN o.object ELSE f.prev_object END AS object,
             CASE WHEN ${unchanged} THEN o.api_version ELSE f.prev_object::jsonb->>'apiVersion' END AS api_version
      FROM cairn_objects o
      LEFT JOIN LATERAL (${firstChangeAfter('o', rv, sql<boolean>`o.resource_version > ${rv}::bigint`)}) f ON true
      WHERE ${and([...inScope('o'), sql<boolean>`(${unchanged} OR f.type <> 'ADDED')`])}
      ORDER BY o.namespace, o.name ${limit}
    ), deleted_keys AS (
      -- A walk of the distinct keys of the DELETED events' index in key order, one key a step, each step
      -- one descent of the index: a plan the planner cannot trade for a scan and a sort of other events.
      (SELECT * FROM (${nextDeleted()}) head WHERE ${withinPage('head')})
      UNION ALL
      (SELECT step.* FROM deleted_keys k CROSS JOIN LATERAL (${nextDeleted(sql`(k.namespace, k.name)`)}) step WHERE ${withinPage('step')})
    ), deleted AS (
      -- The walk yields keys in key order, so the limit keeps the first ones and stops the walk there.
      SELECT d.namespace, d.name, f.prev_object AS object, f.prev_object::jsonb->>'apiVersion' AS api_version
      FROM deleted_keys d CROSS JOIN LATERAL (${firstChangeAfter('d', rv)}) f
      WHERE f.type <> 'ADDED' AND NOT EXISTS (SELECT 1 FROM cairn_objects o WHERE o.resource = d.resource AND o.namespace = d.namespace AND o.name = d.name)
      ${limit}
    )
    SELECT namespace, name, object, api_version FROM (
      (SELECT namespace, name, object, api_version FROM live)
      UNION ALL
      (SELECT namespace, name, object, api_version FROM deleted)
    ) page
    ORDER BY namespace, name ${limit}`;
}

/**
 * The page with a selector: the live rows at or before R that match now (the
 * selector's GIN bitmap, or the primary key), and the first change since R of every
 * key changed since, kept when its prior state matched. A state at R that matched is
 * found only through its prior labels and fields, which only the event log holds, so
 * this side reads every event since R in the scope from the page's start key: an
 * Exact page with a selector at an old R costs the writes since R (the retention
 * bounds them), not the page.
 */
function selectedPageQuery(r: SnapshotPageRequest): PageRows {
  const rv = r.resourceVersion.toString();
  const { namespace, after } = scope(r);
  const limit = r.limit === undefined ? sql`` : sql`LIMIT ${r.limit + 1}`;
  const live = and([
    sql<boolean>`resource = ${r.resource}`,
    sql<boolean>`resource_version <= ${rv}::bigint`,
    ...(namespace !== undefined ? [sql<boolean>`namespace = ${namespace}`] : []),
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

const isSelective = (r: SnapshotPageRequest): boolean => Boolean(r.predicate.labelSelector?.length || r.predicate.fieldSelector?.length);

/**
 * At most this many events since R in the scope are read to count a first page's
 * remainingItemCount; past it, the count is left out. It keeps the count's work (a
 * heap read per event, scattered over the log in a namespace) near the page's own (two
 * reads per item of a page of 500).
 */
const countedChangesBound = 1_000;

/**
 * How many objects of the scope the snapshot at R holds: the counts kept per namespace
 * (the statement's, so a state at R or newer), corrected by the objects that changed
 * since R, each adding one if it existed at R (its first change since did not create
 * it) and taking one away if it exists now (its last change did not delete it). The
 * correction reads every event since R in the scope, so it is made only when there are
 * at most `countedChangesBound` of them (R at or near the newest, as a first page
 * mostly is), checked first from the index alone by a read that stops past the bound;
 * otherwise it is null and the page leaves remainingItemCount out, as kube allows.
 *
 * The correction's read carries the bound as a LIMIT it never reaches (the check has
 * passed), so the planner's estimate of it is bounded too: an estimate that grows with
 * the events since R made PostgreSQL compile every such page with JIT (jit_above_cost),
 * then optimize and inline it (jit_optimize_above_cost), for a branch that does not run:
 * 2.0 s of a cluster-wide first page's 2.2 s at 300,000 objects × 10 revisions.
 */
function totalQuery(r: SnapshotPageRequest): RawBuilder<string | null> {
  const { namespace } = scope(r);
  const inNamespace = namespace === undefined ? sql`` : sql`AND namespace = ${namespace}`;
  const since = sql`resource = ${r.resource} AND resource_version > ${r.resourceVersion.toString()}::bigint ${inNamespace}`;
  return sql<
    string | null
  >`CASE WHEN (SELECT count(*) FROM (SELECT 1 FROM cairn_events WHERE ${since} LIMIT ${countedChangesBound + 1}) s) <= ${countedChangesBound}
    THEN (
      (SELECT coalesce(sum(count), 0) FROM cairn_object_counts WHERE resource = ${r.resource} ${inNamespace})
      + (SELECT coalesce(sum((first_type <> 'ADDED')::int - (last_type <> 'DELETED')::int), 0) FROM (
          SELECT (array_agg(type ORDER BY resource_version))[1] AS first_type, (array_agg(type ORDER BY resource_version DESC))[1] AS last_type
          FROM (SELECT namespace, name, type, resource_version FROM cairn_events WHERE ${since} LIMIT ${countedChangesBound}) since
          GROUP BY namespace, name) changed)
    )::text END`;
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
  const selective = isSelective(r);
  const counted = r.countRemaining && !r.after && !selective && r.limit !== undefined;
  return sql<PageRow>`
    SELECT b.current::text AS current, b.compacted::text AS compacted, b.total, p.namespace, p.name, p.object, p.api_version
    FROM (SELECT (SELECT current FROM cairn_resource_version WHERE id = 1) AS current,
                 ${resourceCompactedSql(r.resource)} AS compacted,
                 ${counted ? totalQuery(r) : sql`NULL::text`} AS total) b
    LEFT JOIN LATERAL (${selective ? selectedPageQuery(r) : keyedPageQuery(r)}) p ON true
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
