/**
 * How far compaction has walked the events of each resource whose history is kept
 * longer than the event log's (`--event-retention-overrides`): those events stay past
 * the log's compaction mark, and each such resource's pass starts after its own mark
 * instead of walking what it kept (each live object's newest state) again.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('cairn_history_marks')
    .addColumn('resource', 'text', (c) => c.primaryKey())
    .addColumn('compacted', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('cairn_history_marks').execute();
}
