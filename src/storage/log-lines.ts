/**
 * Reading and writing log lines (the `log` subresource's table).
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { LogLine, LogRead } from './interfaces.js';
import type { StorageSchema } from './schema.js';
import { decodeText, encodeText } from './stored-text.js';

type Queryable = Kysely<StorageSchema> | Transaction<StorageSchema>;

// Rows per INSERT: three parameters each, well under Postgres' 65,535 parameters per statement.
const insertBatch = 5000;

/** Inserts lines in order; each batch's VALUES take their `seq` in list order. */
export async function insertLogLines(trx: Transaction<StorageSchema>, uid: string, stream: string, lines: readonly string[]): Promise<void> {
  for (let i = 0; i < lines.length; i += insertBatch) {
    const rows = lines.slice(i, i + insertBatch).map((line) => ({ uid, stream: encodeText(stream), line: encodeText(line) }));
    await trx.insertInto('cairn_log_lines').values(rows).execute();
  }
}

/** Reads the lines `request` selects, in `seq` order. */
export async function readLogLines(db: Queryable, uid: string, request: LogRead): Promise<LogLine[]> {
  let query = db
    .selectFrom('cairn_log_lines')
    .select(['seq', 'stream', 'line', sql<string | number>`(extract(epoch from appended_at) * 1000000)::int8`.as('micros')])
    .where('uid', '=', uid)
    .where('seq', '>', request.after.toString());
  if (request.stream !== undefined) query = query.where('stream', '=', encodeText(request.stream));
  if (request.since !== undefined) query = query.where('appended_at', '>=', request.since);
  const rows = await query.orderBy('seq').limit(request.limit).execute();
  // int8 arrives as a number from PGlite and as a string from pg.
  return rows.map((row) => ({ seq: BigInt(row.seq), stream: decodeText(row.stream), appendedAt: BigInt(row.micros), text: decodeText(row.line) }));
}

/** The `seq` before the last `count` lines (of `stream`); 0 when there are no more than that. */
export async function readTailStart(db: Queryable, uid: string, count: number, stream: string | undefined): Promise<bigint> {
  let query = db.selectFrom('cairn_log_lines').select('seq').where('uid', '=', uid);
  if (stream !== undefined) query = query.where('stream', '=', encodeText(stream));
  // An index scan backwards over `count` entries: a tail costs what it returns.
  const row = await query.orderBy('seq', 'desc').offset(count).limit(1).executeTakeFirst();
  return row ? BigInt(row.seq) : 0n;
}
