/**
 * The object table, the event log and the resourceVersion counter.
 *
 * resourceVersion comes from one counter row, updated inside every write
 * transaction: the row lock is held until commit, so writes commit in
 * resourceVersion order and a reader of `resource_version > last` can never skip a
 * row that commits later with a lower version.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('cairn_objects')
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('namespace', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('uid', 'text', (c) => c.notNull())
    .addColumn('resource_version', 'bigint', (c) => c.notNull())
    .addColumn('labels', 'jsonb', (c) => c.notNull())
    .addColumn('fields', 'jsonb', (c) => c.notNull())
    .addColumn('object', 'jsonb', (c) => c.notNull())
    .addPrimaryKeyConstraint('cairn_objects_pkey', ['resource', 'namespace', 'name'])
    .execute();

  await db.schema
    .createTable('cairn_events')
    .addColumn('resource_version', 'bigint', (c) => c.primaryKey())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('namespace', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('labels', 'jsonb', (c) => c.notNull())
    .addColumn('fields', 'jsonb', (c) => c.notNull())
    .addColumn('prev_labels', 'jsonb')
    .addColumn('prev_fields', 'jsonb')
    .addColumn('object', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('cairn_events_resource_rv').on('cairn_events').columns(['resource', 'resource_version']).execute();
  await db.schema.createIndex('cairn_events_created_at').on('cairn_events').column('created_at').execute();

  await db.schema
    .createTable('cairn_resource_version')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('current', 'bigint', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO cairn_resource_version (id, current) VALUES (1, 0)`.execute(db);

  // Kept apart from the counter so compaction never waits on a writer's row lock.
  await db.schema
    .createTable('cairn_compaction')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('compacted', 'bigint', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO cairn_compaction (id, compacted) VALUES (1, 0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['cairn_compaction', 'cairn_resource_version', 'cairn_events', 'cairn_objects']) {
    await db.schema.dropTable(table).execute();
  }
}
