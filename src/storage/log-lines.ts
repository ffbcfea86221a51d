/**
 * Reading and writing log lines (the `log` subresource's table) and keeping each log
 * within its limits: a cap on its bytes, kept by the append that exceeds it, and an age
 * limit, kept by the compaction pass. Both remove a log's oldest lines, as kubelet's
 * rotation drops a container's oldest log file.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './database.js';
import type { LogLine, LogRead } from './interfaces.js';
import type { StorageSchema } from './schema.js';
import { decodeText, encodeText } from './stored-text.js';

type Queryable = Kysely<StorageSchema> | Transaction<StorageSchema>;

/**
 * Appends lines to a log in order, each taking its `seq` in list order and its byte
 * offset after the log's last, and keeps the log within `maxBytes` (0: no cap). One
 * statement updates the log's row, locking it (as the age limit and a deletion lock it
 * before they delete its lines), and inserts the lines at the offsets it held; the log's
 * first append creates the row instead. Only when the log is then over its cap does a
 * second statement remove its oldest lines.
 */
export async function appendLogLines(trx: Transaction<StorageSchema>, uid: string, stream: string, lines: readonly string[], maxBytes: number): Promise<void> {
  let added = 0;
  const rows = lines.map((line) => {
    const l = encodeText(line);
    const row = { l, o: added };
    // A line's bytes as PostgreSQL's octet_length counts them (UTF-8), with its newline.
    added += Buffer.byteLength(l) + 1;
    return row;
  });
  const values = { uid, stream: encodeText(stream), rows: JSON.stringify(rows), added: added.toString() };
  const size = (await appendToLog(trx, values)) ?? (await startLog(trx, values));
  if (maxBytes > 0 && size.bytes > maxBytes) await trimLog(trx, uid, size, maxBytes);
}

/** What one append writes: its lines (`l`) with their offsets from its first (`o`, which orders them), as JSON, and their bytes. */
interface Appended {
  readonly uid: string;
  readonly stream: string;
  readonly rows: string;
  readonly added: string;
}

/** A log's bytes and the bytes ever appended to it, after an append. */
interface LogSize {
  readonly bytes: bigint;
  readonly appended: bigint;
}

const logSize = (row: { bytes: string; appended: string } | undefined): LogSize | undefined =>
  row && { bytes: BigInt(row.bytes), appended: BigInt(row.appended) };

/** Appends to a log that has its row; undefined (and nothing written) when it has none yet. */
async function appendToLog(trx: Transaction<StorageSchema>, a: Appended): Promise<LogSize | undefined> {
  const { rows } = await sql<{ bytes: string; appended: string }>`WITH log AS (
      UPDATE cairn_logs SET bytes = bytes + ${a.added}::bigint, appended = appended + ${a.added}::bigint WHERE uid = ${a.uid}
      RETURNING bytes, appended
    ), added AS (
      INSERT INTO cairn_log_lines (uid, stream, line, byte_offset)
      SELECT ${a.uid}, ${a.stream}, l.l, log.appended - ${a.added}::bigint + l.o
      FROM log, json_to_recordset(${a.rows}::json) AS l(l text, o bigint) ORDER BY l.o
    )
    SELECT bytes::text, appended::text FROM log`.execute(trx);
  return logSize(rows[0]);
}

/** A log's first append: its row and its lines, from offset 0. */
async function startLog(trx: Transaction<StorageSchema>, a: Appended): Promise<LogSize> {
  const { rows } = await sql<{ bytes: string; appended: string }>`WITH log AS (
      INSERT INTO cairn_logs (uid, bytes, appended) VALUES (${a.uid}, ${a.added}::bigint, ${a.added}::bigint)
      RETURNING bytes, appended
    ), added AS (
      INSERT INTO cairn_log_lines (uid, stream, line, byte_offset)
      SELECT ${a.uid}, ${a.stream}, l.l, l.o FROM json_to_recordset(${a.rows}::json) AS l(l text, o bigint) ORDER BY l.o
    )
    SELECT bytes::text, appended::text FROM log`.execute(trx);
  return logSize(rows[0])!;
}

/**
 * Removes the oldest lines of a log until at most `maxBytes` are left, in the append's
 * transaction (whose upsert holds the log's row): the lines that start before
 * `appended - maxBytes`, a range of the index on `(uid, byte_offset)` from the log's
 * first kept line, so a trim reads only the lines it removes, never the log's others
 * nor the index entries of the lines removed before (dead until a vacuum).
 */
async function trimLog(trx: Transaction<StorageSchema>, uid: string, size: LogSize, maxBytes: number): Promise<void> {
  await sql`WITH gone AS (
      DELETE FROM cairn_log_lines WHERE uid = ${uid} AND byte_offset >= ${(size.appended - size.bytes).toString()}::bigint
        AND byte_offset < ${(size.appended - BigInt(maxBytes)).toString()}::bigint
      RETURNING seq, octet_length(line) + 1 AS bytes
    )
    UPDATE cairn_logs SET bytes = cairn_logs.bytes - g.bytes, removed_through = g.through
    FROM (SELECT sum(bytes) AS bytes, max(seq) AS through FROM gone) g
    WHERE uid = ${uid} AND g.through IS NOT NULL`.execute(trx);
}

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
 * the logs it touches first, in uid order (as an append and a deletion lock a log's row
 * before its lines), then deletes their lines and takes their bytes off the logs' sizes,
 * recording where each log's removed prefix now ends. Returns the lines removed.
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
          RETURNING uid, seq, octet_length(line) + 1 AS bytes
        ), sized AS (
          UPDATE cairn_logs l SET bytes = l.bytes - g.bytes, removed_through = greatest(l.removed_through, g.through)
          FROM (SELECT uid, sum(bytes) AS bytes, max(seq) AS through FROM gone GROUP BY uid) g WHERE l.uid = g.uid
        )
        SELECT count(*)::int AS removed FROM gone`.execute(trx);
      return { removed: Number(rows[0].removed), done: young !== -1 || oldest.length < batchSize };
    });
    removed += step.removed;
    if (step.done) return removed;
  }
}
