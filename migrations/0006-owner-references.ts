/**
 * The owners and finalizers of each object, selectable by index, so that the garbage
 * collector finds an owner's dependents (and the objects it has work on) with a query
 * instead of holding every object in memory.
 *
 * Every kind gets two list-valued selectable fields in `fields` (metadata-fields.ts):
 * `metadata.ownerReferences.uid` and `metadata.finalizers`, each present only when its
 * list is not empty. `fields @> '{"metadata.ownerReferences.uid":["U"]}'` (an owner's
 * dependents) is served by migration 0005's GIN index on `fields`; a partial index on
 * the key of the objects that have owners serves the collector's catch-up, which pages
 * through them in key order (`fields ? 'metadata.ownerReferences.uid'`), and costs
 * nothing for objects without owners. Kept in `fields` rather than a column of their
 * own, so watches, the object cache and history pages select on them as on any field.
 *
 * Existing rows are filled in here; the event log's are not (a page of a snapshot older
 * than this migration may miss them in its history part, within the retention window).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE cairn_objects SET fields = fields
      || CASE WHEN jsonb_typeof(object->'metadata'->'ownerReferences') = 'array' AND jsonb_array_length(object->'metadata'->'ownerReferences') > 0
         THEN jsonb_build_object('metadata.ownerReferences.uid', (SELECT jsonb_agg(r->'uid') FROM jsonb_array_elements(object->'metadata'->'ownerReferences') r))
         ELSE '{}'::jsonb END
      || CASE WHEN jsonb_typeof(object->'metadata'->'finalizers') = 'array' AND jsonb_array_length(object->'metadata'->'finalizers') > 0
         THEN jsonb_build_object('metadata.finalizers', object->'metadata'->'finalizers')
         ELSE '{}'::jsonb END
    WHERE object->'metadata' ?| array['ownerReferences', 'finalizers']`.execute(db);
  await sql`CREATE INDEX cairn_objects_owned ON cairn_objects (resource, namespace, name) WHERE fields ? 'metadata.ownerReferences.uid'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('cairn_objects_owned').execute();
  await sql`UPDATE cairn_objects SET fields = fields - 'metadata.ownerReferences.uid' - 'metadata.finalizers'
    WHERE fields ?| array['metadata.ownerReferences.uid', 'metadata.finalizers']`.execute(db);
}
