/**
 * The log lines of the `log` subresource (a Pipeline's steps' output), one row per
 * line, kept apart from the object so an append never rewrites it.
 *
 * Lines are keyed by the object's uid, which a re-created object of the same name does
 * not share, and ordered by `seq`: an append holds the object's row lock while it takes
 * its numbers, so one object's lines commit in `seq` order and a follower reading
 * `seq > last` never skips one. Storage deletes them with the object, in the same
 * transaction, before it takes the deletion's resourceVersion. An ON DELETE CASCADE
 * foreign key would delete them later, while the resourceVersion counter every
 * writer waits for is held, and would need a unique index on `cairn_objects.uid`.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('cairn_log_lines')
    .addColumn('seq', 'bigserial', (c) => c.primaryKey())
    .addColumn('uid', 'text', (c) => c.notNull())
    // The stream a line belongs to: a Pipeline's step.
    .addColumn('stream', 'text', (c) => c.notNull())
    // clock_timestamp(), not now(): an append that waited for the row lock must not be stamped earlier than the one before it.
    .addColumn('appended_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn('line', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('cairn_log_lines_uid_seq').on('cairn_log_lines').columns(['uid', 'seq']).execute();
  await db.schema.createIndex('cairn_log_lines_uid_stream_seq').on('cairn_log_lines').columns(['uid', 'stream', 'seq']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('cairn_log_lines').execute();
}
