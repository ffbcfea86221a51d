/**
 * A log's row keeps where its removed prefix ends in bytes (`removed_bytes`: the byte
 * offset of its first kept line) in place of its size and its bytes ever appended, which
 * every append had to rewrite. The log's end is its last line's offset and length (the
 * `(uid, byte_offset)` index read backwards, one entry), or `removed_bytes` when no line
 * is left, so only what removes lines writes the row: an append below the cap writes its
 * lines alone, as it did before logs had a cap.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('cairn_logs').addColumn('removed_bytes', 'bigint').execute();
  // What was appended, less what is kept: the offset the first kept line has.
  await sql`UPDATE cairn_logs SET removed_bytes = appended - bytes`.execute(db);
  await db.schema
    .alterTable('cairn_logs')
    .alterColumn('removed_bytes', (c) => c.setNotNull())
    .execute();
  await db.schema.alterTable('cairn_logs').dropColumn('bytes').dropColumn('appended').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('cairn_logs').addColumn('bytes', 'bigint').addColumn('appended', 'bigint').execute();
  await sql`UPDATE cairn_logs l SET appended = coalesce((
      SELECT byte_offset + octet_length(line) + 1 FROM cairn_log_lines WHERE uid = l.uid ORDER BY byte_offset DESC LIMIT 1
    ), l.removed_bytes)`.execute(db);
  await sql`UPDATE cairn_logs SET bytes = appended - removed_bytes`.execute(db);
  await db.schema
    .alterTable('cairn_logs')
    .alterColumn('bytes', (c) => c.setNotNull())
    .execute();
  await db.schema
    .alterTable('cairn_logs')
    .alterColumn('appended', (c) => c.setNotNull())
    .execute();
  await db.schema.alterTable('cairn_logs').dropColumn('removed_bytes').execute();
}
