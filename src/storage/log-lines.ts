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
 * Inserts lines in order, each taking its `seq` in list order, and adds their bytes to
 * the log's size, in one statement; returns the log's size after it, and where its
 * removed prefix ends.
 */
export async function insertLogLines(
  trx: Transaction<StorageSchema>,
  uid: string,
  stream: string,
  lines: readonly string[],
): Promise<{ bytes: bigint; removedThrough: bigint }> {
  const { rows } = await sql<{ bytes: string; removed_through: string }>`WITH added AS (
      INSERT INTO cairn_log_lines (uid, stream, line)
      SELECT ${uid}, ${encodeText(stream)}, l.line FROM json_array_elements_text(${JSON.stringify(lines.map(encodeText))}::json) WITH ORDINALITY AS l(line, i)
      ORDER BY l.i
      RETURNING octet_length(line) + 1 AS bytes)
    INSERT INTO cairn_logs (uid, bytes) SELECT ${uid}, sum(bytes) FROM added
    ON CONFLICT (uid) DO UPDATE SET bytes = cairn_logs.bytes + excluded.bytes
    RETURNING bytes::text, removed_through::text`.execute(trx);
  return { bytes: BigInt(rows[0].bytes), removedThrough: BigInt(rows[0].removed_through) };
}

/**
 * Removes the oldest lines of a log until at most `maxBytes` are left, in the append's
 * transaction (whose upsert holds the log's row): a running sum over the log from its
 * start finds the first line the excess fits in, reading only as far as what goes. The
 * start is the index's first entry after `removedThrough`, so the entries of the lines
 * removed before, dead until a vacuum, are never walked again.
 */
export async function trimLog(trx: Transaction<StorageSchema>, uid: string, size: { bytes: bigint; removedThrough: bigint }, maxBytes: number): Promise<void> {
  const excess = size.bytes - BigInt(maxBytes);
  const start = size.removedThrough.toString();
  await sql`WITH boundary AS (
      SELECT seq, upto FROM (
        SELECT seq, sum(octet_length(line) + 1) OVER (ORDER BY seq) AS upto FROM cairn_log_lines WHERE uid = ${uid} AND seq > ${start}::bigint
      ) l
      WHERE upto >= ${excess.toString()}::bigint ORDER BY seq LIMIT 1
    ), gone AS (
      DELETE FROM cairn_log_lines WHERE uid = ${uid} AND seq > ${start}::bigint AND seq <= (SELECT seq FROM boundary)
    )
    UPDATE cairn_logs SET bytes = bytes - (SELECT upto FROM boundary), removed_through = (SELECT seq FROM boundary)
    WHERE uid = ${uid} AND EXISTS (SELECT FROM boundary)`.execute(trx);
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
