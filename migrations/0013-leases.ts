/**
 * Leases with an expiry, for work one replica does at a time where no session can hold
 * an advisory lock for it: through a transaction-mode pooler (PgBouncer) a session
 * lasts one transaction, so the garbage collector's lock is a row here instead.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('cairn_leases')
    .addColumn('name', 'text', (column) => column.primaryKey())
    .addColumn('holder', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('cairn_leases').execute();
}
