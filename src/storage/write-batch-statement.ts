/**
 * The SQL of one group commit: every write of a batch (creates, compare-and-swap
 * updates and deletes, of any resources) in one round trip and one transaction, the
 * resourceVersion counter bumped once for all of them.
 *
 * How the statement keeps the storage invariants:
 * - **Order.** The counter row is updated once, by the number of writes accepted, and
 *   its lock is held until commit; each accepted write gets `after + n` in batch order.
 *   A batch that locks the counter after another committed reads that one's bump, so
 *   every resourceVersion up to `after` had committed before this batch could commit:
 *   commits stay in resourceVersion order, and a reader of `rv > last` never skips one.
 * - **Isolation of conflicts.** Each write's condition is checked against its row,
 *   locked (in key order, so batches of two replicas cannot deadlock) before the
 *   counter: a create whose row exists, or an update or delete whose row is no longer
 *   at the resourceVersion it read, is left out and reported, and takes no
 *   resourceVersion; the others commit, with no savepoint and no retry of the batch.
 * - **Exactly once.** A write's event is inserted only when its row changed, in the
 *   same statement: a write is wholly applied (row and event) or not at all. The one
 *   race the row lock cannot see, a create whose key another replica inserts after this
 *   statement's snapshot, is reported as existing and leaves its resourceVersion
 *   unused: a gap, never a reordering (kube's resourceVersions are not contiguous).
 * - **Each event says what wrote it.** It records the object's uid (a create's own,
 *   the row's for an update or delete) and the write's origin (operation, subresource,
 *   field manager, user; null when the write gave none), for the object's history.
 * - **Log lines go with their object.** A batch with deletes first locks its rows and
 *   deletes the deleted objects' logs (their size rows, then their lines) in statements
 *   of their own: each statement reads a fresh snapshot, taken once the row locks are
 *   held, so lines an append committed while the batch waited for the lock are deleted
 *   too, and the counter is not held while a long log goes.
 *
 * - **Other replicas hear of it at its commit.** Given a channel, the statement wakes
 *   their watch caches with `pg_notify` when it accepted a write: delivered with the
 *   commit itself, without a second round trip and a second commit flush after it.
 *
 * Values travel as one jsonb array, each object's JSON text in it as two strings split
 * where its resourceVersion goes (object-text.ts; the statement joins them around the
 * resourceVersion it assigns and stores the text as it is, parsing no object): a
 * parameter of one prepared statement, or, for a batch with deletes, whose statements
 * go in one round trip without parameters, a dollar-quoted literal.
 */
import type { Database, Row } from './database.js';
import type { WriteOrigin } from './interfaces.js';
import type { ObjectText } from './object-text.js';
import { encodeText } from './stored-text.js';

/** One write of a batch. JSON texts must be jsonb-safe (`encodeJsonb`; `splitObjectText`). */
export interface BatchedWrite {
  readonly op: 'create' | 'update' | 'delete';
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  /** update, delete: the resourceVersion the row must still be at. */
  readonly expected?: string;
  /** create: the object's uid. */
  readonly uid?: string;
  /** create, update: the apiVersion the object is encoded in. */
  readonly apiVersion?: string;
  /** The labels and selectable fields of the new state (of the object deleted, for a delete), as JSON. */
  readonly labels: string;
  readonly fields: string;
  /** update: those of the state it replaces, as JSON. */
  readonly prevLabels?: string;
  readonly prevFields?: string;
  /** The object as JSON text (of the object deleted, for a delete), split where the resourceVersion the batch assigns goes. */
  readonly object: ObjectText;
  /** Who writes, and how: recorded with the write's event (null columns when undefined). */
  readonly origin?: WriteOrigin;
}

/** What a batch did. */
export interface BatchOutcome {
  /** Per write, in batch order: its resourceVersion, or undefined when its condition failed. */
  readonly resourceVersions: readonly (bigint | undefined)[];
  /**
   * The resourceVersions the batch took are `after + 1` … `through`; every one up to
   * `after` committed before it. Undefined when no write was accepted.
   */
  readonly range?: { readonly after: bigint; readonly through: bigint };
}

const str = (value: string): string => JSON.stringify(value);

/** One write as an element of the batch's jsonb array. */
function element(w: BatchedWrite): string {
  let json = `{"op":"${w.op}","r":${str(w.resource)},"ns":${str(encodeText(w.namespace))},"n":${str(encodeText(w.name))},"l":${w.labels},"f":${w.fields}`;
  if (w.expected !== undefined) json += `,"e":${str(w.expected)}`;
  if (w.uid !== undefined) json += `,"uid":${str(encodeText(w.uid))}`;
  if (w.apiVersion !== undefined) json += `,"av":${str(encodeText(w.apiVersion))}`;
  if (w.prevLabels !== undefined) json += `,"pl":${w.prevLabels}`;
  if (w.prevFields !== undefined) json += `,"pf":${w.prevFields}`;
  if (w.origin !== undefined) {
    const { operation, subresource, fieldManager, user } = w.origin;
    json += `,"o":${str(operation)},"sr":${str(encodeText(subresource))},"fm":${str(encodeText(fieldManager))},"u":${str(encodeText(user))}`;
  }
  return `${json},"oh":${str(w.object.head)},"ot":${str(w.object.tail)}}`;
}

/** `text` as a dollar-quoted literal whose tag it does not contain: nothing in it needs escaping. */
export function dollarQuoted(text: string): string {
  let tag = '$w$';
  for (let i = 0; text.includes(tag); i++) tag = `$w${i}$`;
  return `${tag}${text}${tag}`;
}

/** The keys (and, with `expected`, the resourceVersions) of `writes` as a jsonb literal. */
function keysLiteral(writes: readonly BatchedWrite[], expected: boolean): string {
  const keys = writes.map(
    (w) => `{"r":${str(w.resource)},"ns":${str(encodeText(w.namespace))},"n":${str(encodeText(w.name))}${expected ? `,"e":${str(w.expected ?? '')}` : ''}}`,
  );
  return `${dollarQuoted(`[${keys.join(',')}]`)}::jsonb`;
}

/** Locks the rows of every key in the batch, in key order (the order every batch locks in). */
const lockRows = (keys: string) => `SELECT count(*) FROM (
  SELECT 1 FROM cairn_objects o
  WHERE (o.resource, o.namespace, o.name) IN (SELECT k->>'r', k->>'ns', k->>'n' FROM jsonb_array_elements(${keys}) AS k)
  ORDER BY o.resource, o.namespace, o.name
  FOR UPDATE OF o) AS locked`;

/** The uids of the objects the batch deletes, if their rows are still at the version read. */
const deletedUids = (
  deletes: string,
) => `SELECT o.uid FROM cairn_objects o JOIN jsonb_array_elements(${deletes}) AS d ON (o.resource, o.namespace, o.name) = (d->>'r', d->>'ns', d->>'n')
  WHERE o.resource_version = (d->>'e')::bigint`;

/** Deletes the logs' rows of the objects the batch deletes, locked in uid order before their lines, as every remover of lines locks them. */
const deleteLogs = (deletes: string) => `DELETE FROM cairn_logs WHERE uid IN (
  SELECT uid FROM cairn_logs WHERE uid IN (${deletedUids(deletes)}) ORDER BY uid FOR UPDATE)`;

/** Deletes the log lines of the objects the batch deletes. */
const deleteLogLines = (deletes: string) => `DELETE FROM cairn_log_lines WHERE uid IN (${deletedUids(deletes)})`;

/** Who a batch wakes at its commit: the listeners of `channel`, told by `payload` who wrote. */
export interface BatchNotify {
  readonly channel: string;
  readonly payload: string;
}

/**
 * The writes themselves; returns per write (`idx` from 1) its resourceVersion, and the batch's range.
 * With `notify` (two SQL expressions, channel and payload), a batch that accepted a write notifies.
 */
const writeAll = (batch: string, notify?: readonly [string, string]) => `WITH input AS MATERIALIZED (
  SELECT w.idx::int AS idx, w.v->>'op' AS op, w.v->>'r' AS resource, w.v->>'ns' AS namespace, w.v->>'n' AS name,
         w.v->>'uid' AS uid, (w.v->>'e')::bigint AS expected, w.v->>'av' AS api_version,
         w.v->'l' AS labels, w.v->'f' AS fields, w.v->'pl' AS prev_labels, w.v->'pf' AS prev_fields,
         w.v->>'oh' AS object_head, w.v->>'ot' AS object_tail,
         w.v->>'o' AS operation, w.v->>'sr' AS subresource, w.v->>'fm' AS field_manager, w.v->>'u' AS username
  FROM jsonb_array_elements(${batch}) WITH ORDINALITY AS w(v, idx)
), current_rows AS MATERIALIZED (
  SELECT o.resource, o.namespace, o.name, o.resource_version, o.uid, o.object
  FROM cairn_objects o
  WHERE (o.resource, o.namespace, o.name) IN (SELECT resource, namespace, name FROM input)
  ORDER BY o.resource, o.namespace, o.name
  FOR UPDATE OF o
), accepted AS MATERIALIZED (
  SELECT i.*, c.object AS prev_object, c.uid AS current_uid, row_number() OVER (ORDER BY i.idx) AS seq
  FROM input i LEFT JOIN current_rows c ON (c.resource, c.namespace, c.name) = (i.resource, i.namespace, i.name)
  WHERE CASE WHEN i.op = 'create' THEN c.name IS NULL ELSE c.resource_version = i.expected END
), counter AS (
  UPDATE cairn_resource_version SET current = current + (SELECT count(*) FROM accepted)
  WHERE id = 1 AND EXISTS (SELECT FROM accepted)
  RETURNING current - (SELECT count(*) FROM accepted) AS after, current AS through
), stamped AS MATERIALIZED (
  SELECT a.*, k.after + a.seq AS rv, a.object_head || (k.after + a.seq)::text || a.object_tail AS stored
  FROM accepted a CROSS JOIN counter k
), inserted AS (
  INSERT INTO cairn_objects (resource, namespace, name, uid, resource_version, api_version, labels, fields, object)
  SELECT resource, namespace, name, uid, rv, api_version, labels, fields, stored FROM stamped WHERE op = 'create'
  ON CONFLICT DO NOTHING
  RETURNING resource, namespace, name
), updated AS (
  UPDATE cairn_objects o SET resource_version = s.rv, api_version = s.api_version, labels = s.labels, fields = s.fields, object = s.stored
  FROM stamped s
  WHERE s.op = 'update' AND o.resource = s.resource AND o.namespace = s.namespace AND o.name = s.name AND o.resource_version = s.expected
  RETURNING o.resource, o.namespace, o.name
), deleted AS (
  DELETE FROM cairn_objects o USING stamped s
  WHERE s.op = 'delete' AND o.resource = s.resource AND o.namespace = s.namespace AND o.name = s.name AND o.resource_version = s.expected
  RETURNING o.resource, o.namespace, o.name
), logged AS (
  INSERT INTO cairn_events (resource_version, resource, namespace, name, type, labels, fields, prev_labels, prev_fields, object, prev_object,
                            uid, operation, subresource, field_manager, username)
  SELECT s.rv, s.resource, s.namespace, s.name, CASE s.op WHEN 'create' THEN 'ADDED' WHEN 'update' THEN 'MODIFIED' ELSE 'DELETED' END,
         s.labels, s.fields, s.prev_labels, s.prev_fields, s.stored, s.prev_object,
         COALESCE(s.uid, s.current_uid), s.operation, s.subresource, s.field_manager, s.username
  FROM stamped s
  WHERE (s.resource, s.namespace, s.name) IN (SELECT * FROM inserted UNION ALL SELECT * FROM updated UNION ALL SELECT * FROM deleted)
  RETURNING resource_version
)${
  // A CTE runs once: joined on true, its one row (none when nothing was accepted) leaves the rows as they are.
  notify ? `, notified AS MATERIALIZED (SELECT pg_notify(${notify[0]}, ${notify[1]}) WHERE EXISTS (SELECT FROM accepted))` : ''
}
SELECT i.idx, l.resource_version::text AS rv, (SELECT after::text FROM counter) AS after, (SELECT through::text FROM counter) AS through
FROM input i LEFT JOIN stamped s ON s.idx = i.idx LEFT JOIN logged l ON l.resource_version = s.rv${notify ? ' LEFT JOIN notified ON true' : ''}
ORDER BY i.idx`;

/** The statements of a batch without deletes, prepared once per connection: no parse, no plan per batch. */
const preparedWriteAll = writeAll('$1::jsonb');
const preparedWriteAllNotifying = writeAll('$1::jsonb', ['$2', '$3']);

/**
 * Applies `writes`, which must be of distinct keys (two writes of one row in one
 * statement would see the same snapshot), in one round trip and one transaction, and
 * returns what the writes' statement returned (read it with {@link readBatchOutcome}).
 * Throws what the database throws: then none of them is applied.
 */
export async function runWriteBatch(database: Database, writes: readonly BatchedWrite[], notify?: BatchNotify): Promise<readonly Row[]> {
  const batch = `[${writes.map(element).join(',')}]`;
  const deletes = writes.filter((w) => w.op === 'delete');
  if (deletes.length === 0) {
    if (notify) return database.query(preparedWriteAllNotifying, [batch, notify.channel, notify.payload], 'cairn-write-batch-notify');
    return database.query(preparedWriteAll, [batch], 'cairn-write-batch');
  }
  const deleted = keysLiteral(deletes, true);
  const notifyLiterals = notify && ([dollarQuoted(notify.channel), dollarQuoted(notify.payload)] as const);
  const script = [
    lockRows(keysLiteral(writes, false)),
    deleteLogs(deleted),
    deleteLogLines(deleted),
    writeAll(`${dollarQuoted(batch)}::jsonb`, notifyLiterals),
  ].join(';\n');
  return (await database.script(script)).at(-1) ?? [];
}

/** The outcome of a batch of `count` writes, from the rows {@link runWriteBatch} returned. */
export function readBatchOutcome(rows: readonly Row[], count: number): BatchOutcome {
  const resourceVersions: (bigint | undefined)[] = new Array<bigint | undefined>(count).fill(undefined);
  let range: BatchOutcome['range'];
  for (const row of rows) {
    const rv = row.rv as string | null;
    if (rv !== null) resourceVersions[Number(row.idx) - 1] = BigInt(rv);
    if (range === undefined && row.after !== null && row.through !== null)
      range = { after: BigInt(row.after as string), through: BigInt(row.through as string) };
  }
  if (rows.length !== count) throw new Error(`a write batch of ${count} returned ${rows.length} outcomes`);
  return { resourceVersions, range };
}
