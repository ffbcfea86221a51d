/**
 * Objects are stored as the JSON text they were written as (`text`), not as `jsonb`.
 *
 * Nothing reads inside an object in SQL: selectors read the `labels` and `fields`
 * columns, keys their own, and the storage version `api_version`. What reads the
 * object reads it whole, and a list hands the text on as it is (storage's
 * `listJson`); as `jsonb`, PostgreSQL printed every object of every page back to
 * text and Node parsed the row's larger text. The text keeps the escaping of
 * stored-text.ts (`encodeJsonb`): a `text` column cannot hold U+0000 either, and rows
 * written before read back the same (their text is what PostgreSQL printed of the
 * `jsonb`, whose escapes are the same). The event log's objects go the same way. The
 * columns are converted in place: each table is rewritten once.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE cairn_objects ALTER COLUMN object TYPE text USING object::text`.execute(db);
  await sql`ALTER TABLE cairn_events ALTER COLUMN object TYPE text USING object::text, ALTER COLUMN prev_object TYPE text USING prev_object::text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE cairn_objects ALTER COLUMN object TYPE jsonb USING object::jsonb`.execute(db);
  await sql`ALTER TABLE cairn_events ALTER COLUMN object TYPE jsonb USING object::jsonb, ALTER COLUMN prev_object TYPE jsonb USING prev_object::jsonb`.execute(
    db,
  );
}
