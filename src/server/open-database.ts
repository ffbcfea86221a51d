/**
 * Opens the configured database: PostgreSQL when a URL is given, PGlite under the
 * data directory otherwise.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Database } from '../storage/database.js';
import { PGliteDatabase } from '../storage/pglite-database.js';
import { PostgresDatabase } from '../storage/postgres-database.js';
import type { DatabaseLocation } from './options/storage.js';

/** Where PGlite keeps its files under the data directory. */
export const pgliteDirectory = (dataDir: string): string => join(dataDir, 'pglite');

/** Opens the database of `config`. */
export async function openDatabase(config: DatabaseLocation, logger: Logger): Promise<Database> {
  if (config.databaseUrl) {
    return new PostgresDatabase({
      connectionString: config.databaseUrl,
      ...(config.databaseListenUrl !== undefined ? { listenConnectionString: config.databaseListenUrl } : {}),
      ...(config.databasePooler !== undefined ? { pooler: config.databasePooler } : {}),
      onBackgroundError: (error) => logger.warn({ err: error }, 'database connection error'),
    });
  }
  return PGliteDatabase.open(pgliteDirectory(config.dataDir));
}
