/**
 * Reads served by indexes, at a cost that does not grow with the number of objects.
 *
 * - **Selectors.** GIN indexes on the labels and the selectable fields, with the
 *   operator classes of the operators selector-sql.ts writes: `jsonb_ops` on labels
 *   (`@>` for `=`, `in` and selective `!=`; `?` for exists and `!`), `jsonb_path_ops`
 *   on fields (`@>` only: smaller and more precise). A page of a selective selector is
 *   then a bitmap scan of its matches and a sort of them; an unselective one walks the
 *   primary key in key order and stops at the page's end, as any page does. The
 *   planner tells the two apart from the columns' statistics (it tries a containment
 *   on their most common values and histogram), which PostgreSQL's autovacuum keeps,
 *   and Cairn itself on PGlite, which runs none (table-statistics.ts).
 * - **Counts.** `cairn_object_counts` holds how many objects each resource has in each
 *   namespace, kept by statement-level triggers in the writing transaction (the
 *   writers already serialize on the resourceVersion counter, so these rows add no
 *   contention, and nothing in the write path changes). A first page's
 *   `remainingItemCount` reads them instead of counting the rest of the snapshot, and
 *   the next pages carry it in their continue token.
 * - **History.** Pages at an older resourceVersion (a continue token, Exact) read the
 *   first change of each object after it. Cluster-wide that is a range of
 *   `cairn_events_resource_rv`; in one namespace, the range of the new index, so a
 *   namespace's page costs what changed in that namespace since, not in every one.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX cairn_objects_labels ON cairn_objects USING gin (labels)`.execute(db);
  await sql`CREATE INDEX cairn_objects_fields ON cairn_objects USING gin (fields jsonb_path_ops)`.execute(db);
  await db.schema.createIndex('cairn_events_resource_namespace_rv').on('cairn_events').columns(['resource', 'namespace', 'resource_version']).execute();

  await db.schema
    .createTable('cairn_object_counts')
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('namespace', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('cairn_object_counts_pkey', ['resource', 'namespace'])
    .execute();
  await sql`INSERT INTO cairn_object_counts (resource, namespace, count)
    SELECT resource, namespace, count(*) FROM cairn_objects GROUP BY resource, namespace`.execute(db);
  // Rows are touched in key order, so two writers can never wait on each other's in a cycle.
  await sql`CREATE FUNCTION cairn_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO cairn_object_counts (resource, namespace, count)
      SELECT resource, namespace, count(*) FROM cairn_inserted GROUP BY resource, namespace ORDER BY resource, namespace
      ON CONFLICT (resource, namespace) DO UPDATE SET count = cairn_object_counts.count + excluded.count;
      RETURN NULL;
    END $$`.execute(db);
  // A namespace's row goes with its last object: the table holds the namespaces in use.
  await sql`CREATE FUNCTION cairn_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE cairn_object_counts c SET count = c.count - gone.n
      FROM (SELECT resource, namespace, count(*) AS n FROM cairn_deleted GROUP BY resource, namespace ORDER BY resource, namespace) gone
      WHERE (c.resource, c.namespace) = (gone.resource, gone.namespace);
      DELETE FROM cairn_object_counts c
      WHERE c.count <= 0 AND (c.resource, c.namespace) IN (SELECT resource, namespace FROM cairn_deleted);
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER cairn_objects_counted_inserts AFTER INSERT ON cairn_objects
    REFERENCING NEW TABLE AS cairn_inserted FOR EACH STATEMENT EXECUTE FUNCTION cairn_count_inserted()`.execute(db);
  await sql`CREATE TRIGGER cairn_objects_counted_deletes AFTER DELETE ON cairn_objects
    REFERENCING OLD TABLE AS cairn_deleted FOR EACH STATEMENT EXECUTE FUNCTION cairn_count_deleted()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER cairn_objects_counted_deletes ON cairn_objects`.execute(db);
  await sql`DROP TRIGGER cairn_objects_counted_inserts ON cairn_objects`.execute(db);
  await sql`DROP FUNCTION cairn_count_deleted()`.execute(db);
  await sql`DROP FUNCTION cairn_count_inserted()`.execute(db);
  await db.schema.dropTable('cairn_object_counts').execute();
  await db.schema.dropIndex('cairn_events_resource_namespace_rv').execute();
  await db.schema.dropIndex('cairn_objects_fields').execute();
  await db.schema.dropIndex('cairn_objects_labels').execute();
}
