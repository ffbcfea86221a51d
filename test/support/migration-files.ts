/**
 * The schema migrations the repository ships, read from migrations/: what a migrate
 * command must report having run on an empty database, so a migration left out of
 * src/storage/migrate.ts's list fails the tests.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** The `"migrations":[…]` a migrate command logs after bringing an empty database up to date. */
export async function allMigrationsLogged(): Promise<string> {
  const files = await readdir(join(import.meta.dirname, '../../migrations'));
  const names = files
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.replace(/\.ts$/, ''))
    .sort();
  return `"migrations":${JSON.stringify(names)}`;
}
