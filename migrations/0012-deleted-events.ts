/**
 * An index of the DELETED events by key, so a page of the state at an older
 * resourceVersion finds the objects deleted since it (the ones no live row stands
 * for) within the page's range of keys alone: without it, that side of the page walks
 * every event of every key in the range. Only deletes pay for it.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('cairn_events_deleted_key')
    .on('cairn_events')
    .columns(['resource', 'namespace', 'name', 'resource_version'])
    .where(sql.ref('type'), '=', 'DELETED')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('cairn_events_deleted_key').execute();
}
