/**
 * One row per object log beside its lines: how many bytes it holds, so an append can
 * keep the log under its cap without summing its lines, and through which `seq` its
 * oldest lines were removed (by the cap or the age limit), so a follower that had not
 * read them yet can be told it skipped some. A log's bytes are its lines' stored bytes,
 * each with its newline, as `kubectl logs` prints them without timestamps.
 *
 * The row is locked before any of the log's lines are deleted (by an append over the
 * cap, by the age limit, by the object's deletion, which deletes the row too), so the
 * three never wait for each other in opposite orders.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('cairn_logs')
    .addColumn('uid', 'text', (c) => c.primaryKey())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('removed_through', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`INSERT INTO cairn_logs (uid, bytes) SELECT uid, sum(octet_length(line) + 1) FROM cairn_log_lines GROUP BY uid`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('cairn_logs').execute();
}
