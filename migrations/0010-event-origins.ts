/**
 * Each event records who wrote it and how (an object's `history` shows it): the
 * request's operation, subresource, field manager and user, and the uid of the object
 * it wrote, which tells the incarnations of a name deleted and created again apart.
 *
 * The origin columns stay null for events logged before: their origin is unknown. The
 * uid of the events that begin and end an incarnation (ADDED, DELETED: a few rows of
 * the log) is read from their object here; the others' is read from their object when a
 * history by uid reads them, as an event an older replica writes during an upgrade is,
 * so the migration does not rewrite the log. The index of the ADDED and DELETED events
 * by uid (only creates and deletes pay for it) lets a history read by uid find the
 * incarnation's range of resourceVersions at once, and read only within it.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('cairn_events')
    .addColumn('uid', 'text')
    .addColumn('operation', 'text')
    .addColumn('subresource', 'text')
    .addColumn('field_manager', 'text')
    .addColumn('username', 'text')
    .execute();
  await sql`UPDATE cairn_events SET uid = object::jsonb #>> '{metadata,uid}' WHERE type <> 'MODIFIED'`.execute(db);
  await db.schema.createIndex('cairn_events_incarnation').on('cairn_events').column('uid').where(sql.ref('type'), '<>', 'MODIFIED').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('cairn_events_incarnation').execute();
  await db.schema
    .alterTable('cairn_events')
    .dropColumn('uid')
    .dropColumn('operation')
    .dropColumn('subresource')
    .dropColumn('field_manager')
    .dropColumn('username')
    .execute();
}
