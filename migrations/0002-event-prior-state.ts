/**
 * Each MODIFIED and DELETED event keeps the object as it was before the change.
 *
 * A list at an older resourceVersion (a continue token, `resourceVersionMatch=Exact`)
 * needs the state every object had then. Objects untouched since are in the object
 * table; for the others, the prior state on their first later event is that state,
 * even when the event that wrote it has been compacted away.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('cairn_events').addColumn('prev_object', 'jsonb').execute();
  // Events already logged: the prior state is the key's previous event, when still retained.
  await sql`
    UPDATE cairn_events e SET prev_object = p.prev
    FROM (
      SELECT resource_version, type,
             lag(object) OVER (PARTITION BY resource, namespace, name ORDER BY resource_version) AS prev
      FROM cairn_events
    ) p
    WHERE e.resource_version = p.resource_version AND p.type <> 'ADDED'`.execute(db);
  // Where it was not, reads at or before that event could no longer be answered: compact up to it.
  await sql`
    UPDATE cairn_compaction SET compacted = GREATEST(compacted, (
      SELECT COALESCE(max(resource_version), 0) FROM cairn_events WHERE type <> 'ADDED' AND prev_object IS NULL
    ))`.execute(db);
  await sql`DELETE FROM cairn_events WHERE resource_version <= (SELECT compacted FROM cairn_compaction)`.execute(db);
  await db.schema.createIndex('cairn_events_resource_key').on('cairn_events').columns(['resource', 'namespace', 'name', 'resource_version']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('cairn_events_resource_key').execute();
  await db.schema.alterTable('cairn_events').dropColumn('prev_object').execute();
}
