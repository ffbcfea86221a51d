/**
 * Reading and writing log lines (the `log` subresource's table) and keeping each log
 * within its limits: a cap on its bytes, kept by the append that exceeds it, and an age
 * limit, kept by the compaction pass. Both remove a log's oldest lines, as kubelet's
 * rotation drops a container's oldest log file.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './database.js';
import type { LogLine, LogRead } from './interfaces.js';
import type { ObjectRowKey } from './object-rows.js';
import type { StorageSchema } from './schema.js';
import { decodeText, encodeText } from './stored-text.js';
import { dollarQuoted } from './write-batch-statement.js';

type Queryable = Kysely<StorageSchema> | Transaction<StorageSchema>;

/** The object whose log takes an append, at the version its stream was checked against. */
export interface LogAppendTarget {
  readonly object: ObjectRowKey;
  readonly resourceVersion: string;
}

/** A statement with its parameters, for the caller to run as its backend runs it best. */
export interface LogAppendStatement {
  readonly text: string;
  readonly values: readonly unknown[];
}

/**
 * The statement that appends `lines` to the log of `target.object`, in order, each
 * taking its `seq` in list order and its byte offset after the log's last, and keeps
 * the log within `maxBytes` (0: no cap), in one statement ({@link appendStatement}). It
 * returns the object's uid, or no row when nothing was written because the object's row
 * is no longer at `target.resourceVersion` (or is gone).
 *
 * It reads the log's end in its snapshot: run it alone only where no other transaction
 * runs meanwhile (PGlite); elsewhere run {@link lockedLogAppend}, so no append it waits
 * for the row lock of is missing from its snapshot.
 *
 * An append larger than the cap writes only its newest lines that fit: the others would
 * go in the same transaction, so they are counted (their bytes, and one `seq` before the
 * lines kept, where readers are told they skipped them) and never stored.
 */
export function logAppendStatement(target: LogAppendTarget, stream: string, lines: readonly string[], maxBytes: number): LogAppendStatement {
  let added = 0;
  const rows = lines.map((line) => {
    const l = encodeText(line);
    const row = { l, o: added };
    // A line's bytes as PostgreSQL's octet_length counts them (UTF-8), with its newline.
    added += Buffer.byteLength(l) + 1;
    return row;
  });
  // The lines starting before `added - maxBytes` would be removed by this very append.
  const kept = maxBytes > 0 && added > maxBytes ? rows.filter((row) => row.o >= added - maxBytes) : rows;
  const skipped = kept.length === rows.length ? 0 : (kept[0]?.o ?? added);
  const { object } = target;
  const values = [object.resource, encodeText(object.namespace), encodeText(object.name), target.resourceVersion, encodeText(stream)];
  return { text: appendStatement, values: [...values, JSON.stringify(kept), String(added), String(maxBytes), String(skipped)] };
}

/**
 * `append` behind the object's row lock, taken by a statement of its own first, in one
 * round trip and one transaction (the simple query protocol's, values as literals): the
 * append's statement then reads a snapshot taken once the lock is held, which holds
 * every append it waited for. Returns the script; its last statement's rows are the
 * append's.
 */
export function lockedLogAppend(append: LogAppendStatement): string {
  const literal = (i: number) => dollarQuoted(String(append.values[i - 1]));
  const withLiterals = (text: string) => text.replace(/\$(\d+)/g, (_, i: string) => literal(Number(i)));
  return `${withLiterals('SELECT FROM cairn_objects WHERE resource = $1 AND namespace = $2 AND name = $3 FOR UPDATE')};\n${withLiterals(append.text)}`;
}

/**
 * The append. Its parameters: the object's row ($1-$3) and the resourceVersion it must
 * still be at ($4), the stream ($5), the lines kept as JSON (`l`, and `o`, their offsets
 * from the append's first byte, skipped ones included) ($6), the append's bytes ($7),
 * the cap ($8, 0: none), and the bytes skipped at its start ($9).
 *
 * The object's row is locked first, as a deletion locks it: one object's appends take
 * their `seq`s in commit order and its deletion waits for them. The log's end is its
 * last line's (the `(uid, byte_offset)` index read backwards from its removed prefix,
 * one entry), or where its removed prefix ends when no line is left. A log's row is
 * written only by its first append and by what removes lines: an append that takes the
 * log over its cap locks it (before any line is deleted, as the age limit and a deletion
 * do) and deletes the range of offsets below `end - cap` from where the removed prefix
 * ends, reading only the lines it removes, never the index entries of lines removed
 * before (dead until a vacuum).
 */
const appendStatement = `WITH object AS (
    SELECT uid FROM cairn_objects WHERE resource = $1 AND namespace = $2 AND name = $3 AND resource_version = $4::bigint FOR UPDATE
  ), log AS (
    SELECT o.uid, l.uid IS NOT NULL AS started, coalesce((
        SELECT byte_offset + octet_length(line) + 1 FROM cairn_log_lines
        WHERE uid = o.uid AND byte_offset >= coalesce(l.removed_bytes, 0) ORDER BY byte_offset DESC LIMIT 1
      ), l.removed_bytes, 0) AS log_end
    FROM object o LEFT JOIN cairn_logs l ON l.uid = o.uid
  ), skipped AS (
    -- Where the lines skipped end: in bytes, and at a seq of their own, taken before the lines kept take theirs (they read it).
    SELECT log.log_end + $9::bigint AS removed_bytes, nextval('cairn_log_lines_seq_seq') AS removed_through FROM log WHERE $9::bigint > 0
  ), added AS (
    INSERT INTO cairn_log_lines (uid, stream, line, byte_offset)
    SELECT log.uid, $5, r.l, log.log_end + r.o FROM log LEFT JOIN skipped ON true, json_to_recordset($6::json) AS r(l text, o bigint) ORDER BY r.o
  ), started AS (
    INSERT INTO cairn_logs (uid, removed_bytes, removed_through)
    SELECT log.uid, coalesce(s.removed_bytes, 0), coalesce(s.removed_through, 0) FROM log LEFT JOIN skipped s ON true WHERE NOT log.started
  ), locked AS (
    SELECT l.uid, l.removed_bytes FROM cairn_logs l JOIN log ON l.uid = log.uid
    WHERE log.started AND $8::bigint > 0 AND l.removed_bytes < log.log_end + $7::bigint - $8::bigint
    FOR UPDATE OF l
  ), gone AS (
    DELETE FROM cairn_log_lines WHERE uid = (SELECT uid FROM locked)
      AND byte_offset >= (SELECT removed_bytes FROM locked) AND byte_offset < (SELECT log_end FROM log) + $7::bigint - $8::bigint
    RETURNING seq, byte_offset + octet_length(line) + 1 AS line_end
  ), trimmed AS (
    UPDATE cairn_logs l SET removed_bytes = greatest(l.removed_bytes, g.line_end, s.removed_bytes), removed_through = greatest(l.removed_through, g.through, s.removed_through)
    FROM locked k, (SELECT max(line_end) AS line_end, max(seq) AS through FROM gone) g LEFT JOIN skipped s ON true
    WHERE l.uid = k.uid
  )
  SELECT uid FROM object`;

/** The line a reader gets in place of the lines removed before it read them, as a rotated log file loses them. */
export const skippedLinesMarker = "... lines skipped: the log's oldest lines were removed by its size or age limit before this reader reached them ...";

/**
 * Reads the lines `request` selects, in `seq` order. A reader past the log's start
 * (`after` above 0) whose next lines were removed gets {@link skippedLinesMarker} first,
 * at the `seq` the removal ended at, so it is told once. Lines are looked up after the
 * removed prefix, whose index entries stay, dead, until a vacuum.
 */
export async function readLogLines(db: Queryable, uid: string, request: LogRead): Promise<LogLine[]> {
  const { rows } = await sql<{ removed_through: string; seq: string | null; stream: string; line: string; micros: string }>`
    SELECT r.removed_through::text AS removed_through, l.seq::text AS seq, l.stream, l.line, l.micros::text AS micros
    FROM (SELECT coalesce((SELECT removed_through FROM cairn_logs WHERE uid = ${uid}), 0) AS removed_through) r
    LEFT JOIN LATERAL (
      SELECT seq, stream, line, (extract(epoch from appended_at) * 1000000)::int8 AS micros FROM cairn_log_lines
      WHERE uid = ${uid} AND seq > greatest(${request.after.toString()}::bigint, r.removed_through)
        ${request.stream === undefined ? sql`` : sql`AND stream = ${encodeText(request.stream)}`}
        ${request.since === undefined ? sql`` : sql`AND appended_at >= ${request.since}`}
      ORDER BY seq LIMIT ${request.limit}
    ) l ON true
    ORDER BY l.seq`.execute(db);
  const lines = rows
    .filter((row) => row.seq !== null)
    .map((row) => ({ seq: BigInt(row.seq!), stream: decodeText(row.stream), appendedAt: BigInt(row.micros), text: decodeText(row.line) }));
  const removedThrough = BigInt(rows[0]?.removed_through ?? 0);
  if (request.after === 0n || removedThrough <= request.after) return lines;
  const marker = {
    seq: removedThrough,
    stream: request.stream ?? lines[0]?.stream ?? '',
    appendedAt: lines[0]?.appendedAt ?? BigInt(Date.now()) * 1000n,
    text: skippedLinesMarker,
  };
  return [marker, ...lines.slice(0, request.limit - 1)];
}

/** The `seq` before the last `count` lines (of `stream`); 0 when there are no more than that. */
export async function readTailStart(db: Queryable, uid: string, count: number, stream: string | undefined): Promise<bigint> {
  let query = db.selectFrom('cairn_log_lines').select('seq').where('uid', '=', uid);
  if (stream !== undefined) query = query.where('stream', '=', encodeText(stream));
  // An index scan backwards over `count` entries: a tail costs what it returns.
  const row = await query.orderBy('seq', 'desc').offset(count).limit(1).executeTakeFirst();
  return row ? BigInt(row.seq) : 0n;
}

/** How many lines one transaction of the age limit removes at most. */
export const defaultLogExpiryBatch = 1000;

/**
 * Removes the lines appended before `cutoff`, oldest first, a batch at a time, each in a
 * short transaction of its own: the next `batchSize` lines by `seq` (of every log, the
 * oldest there are), up to the first one that is younger. Each batch locks the rows of
 * the logs it touches first, in uid order (as an append over the cap and a deletion lock
 * a log's row before its lines), then deletes their lines, recording where each log's
 * removed prefix now ends, in `seq` and in bytes. Returns the lines removed.
 */
export async function expireLogLines(database: Database, cutoff: Date, batchSize = defaultLogExpiryBatch): Promise<number> {
  let removed = 0;
  for (;;) {
    const step = await database.transaction(async (trx) => {
      const { rows: oldest } = await sql<{ seq: string; uid: string; expired: boolean }>`
        SELECT seq::text AS seq, uid, appended_at < ${cutoff} AS expired FROM cairn_log_lines ORDER BY seq LIMIT ${batchSize}`.execute(trx);
      const young = oldest.findIndex((line) => !line.expired);
      const expired = young === -1 ? oldest : oldest.slice(0, young);
      if (expired.length === 0) return { removed: 0, done: true };
      const uids = JSON.stringify([...new Set(expired.map((line) => line.uid))].sort());
      await sql`SELECT FROM cairn_logs WHERE uid IN (SELECT json_array_elements_text(${uids}::json)) ORDER BY uid FOR UPDATE`.execute(trx);
      // appended_at again: a line that took a lower seq but committed after the first read is no older than its commit.
      const { rows } = await sql<{ removed: number }>`WITH gone AS (
          DELETE FROM cairn_log_lines WHERE seq <= ${expired.at(-1)!.seq}::bigint AND appended_at < ${cutoff}
          RETURNING uid, seq, byte_offset + octet_length(line) + 1 AS line_end
        ), marked AS (
          UPDATE cairn_logs l SET removed_bytes = greatest(l.removed_bytes, g.line_end), removed_through = greatest(l.removed_through, g.through)
          FROM (SELECT uid, max(line_end) AS line_end, max(seq) AS through FROM gone GROUP BY uid) g WHERE l.uid = g.uid
        )
        SELECT count(*)::int AS removed FROM gone`.execute(trx);
      return { removed: Number(rows[0].removed), done: young !== -1 || oldest.length < batchSize };
    });
    removed += step.removed;
    if (step.done) return removed;
  }
}
