/**
 * Each log line's byte offset in its log (the bytes appended to the log before it,
 * removed ones included, each line with its newline), and each log's bytes appended in
 * all: an append over the cap then finds the first line it keeps by its offset, walking
 * only the lines it removes, instead of summing the log's lines from its start, and
 * appends, resizes and trims in one statement.
 *
 * The lines already stored are numbered from their log's first kept line, whose offset
 * is 0, so each log's `appended` starts as its `bytes`.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('cairn_log_lines').addColumn('byte_offset', 'bigint').execute();
  await sql`UPDATE cairn_log_lines l SET byte_offset = o.byte_offset
    FROM (SELECT seq, sum(octet_length(line) + 1) OVER (PARTITION BY uid ORDER BY seq) - (octet_length(line) + 1) AS byte_offset FROM cairn_log_lines) o
    WHERE l.seq = o.seq`.execute(db);
  await db.schema
    .alterTable('cairn_log_lines')
    .alterColumn('byte_offset', (c) => c.setNotNull())
    .execute();
  await db.schema.createIndex('cairn_log_lines_uid_byte_offset').on('cairn_log_lines').columns(['uid', 'byte_offset']).execute();
  await db.schema.alterTable('cairn_logs').addColumn('appended', 'bigint').execute();
  await sql`UPDATE cairn_logs SET appended = bytes`.execute(db);
  await db.schema
    .alterTable('cairn_logs')
    .alterColumn('appended', (c) => c.setNotNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('cairn_logs').dropColumn('appended').execute();
  await db.schema.dropIndex('cairn_log_lines_uid_byte_offset').execute();
  await db.schema.alterTable('cairn_log_lines').dropColumn('byte_offset').execute();
}
