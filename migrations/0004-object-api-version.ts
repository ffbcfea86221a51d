/**
 * Each object row records the apiVersion its object is encoded in.
 *
 * Reads convert an object written in another version to the storage version, but
 * only the object's JSON says which version that is: `npm run storage-migrate` needs
 * a column to find the rows left to rewrite without reading every object.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('cairn_objects').addColumn('api_version', 'text').execute();
  await sql`UPDATE cairn_objects SET api_version = coalesce(object->>'apiVersion', '')`.execute(db);
  await db.schema
    .alterTable('cairn_objects')
    .alterColumn('api_version', (c) => c.setNotNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('cairn_objects').dropColumn('api_version').execute();
}
