/**
 * What the database promises about an acknowledged write surviving a crash: PGlite
 * runs with fsync off, so a machine crash can lose what it acknowledged. Read from the
 * database itself rather than assumed, so the banner stays true whatever PGlite or an
 * operator's PostgreSQL configuration does.
 */
import { sql } from 'kysely';
import type { Database } from './database.js';

/** Whether the database flushes its commits to disk (`SHOW fsync`). */
export async function fsyncEnabled(database: Database): Promise<boolean> {
  const { rows } = await database.run((db) => sql<{ fsync: string }>`SHOW fsync`.execute(db));
  return rows[0]?.fsync === 'on';
}
