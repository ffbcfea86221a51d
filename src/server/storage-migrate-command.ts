/**
 * `npm run storage-migrate [-- --page-size N]`: rewrites every object stored in
 * another version than its resource's storage version, for each resource of each
 * served group, then exits. It finds the database as the server does
 * (`--database-url`/`DATABASE_URL`, else PGlite under `--data-dir`/`DATA_DIR`) and may
 * run while servers serve from PostgreSQL: each rewrite is an ordinary optimistic
 * write. PGlite is one process's, so there the server must be stopped first (the
 * command says so when it is not). Stopped midway, it has lost nothing: run it again.
 */
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { resourceStorage, storageName, storageVersioningOf } from '../registry/resource-storage.js';
import { migrateToLatest } from '../storage/migrate.js';
import { SqlObjectStore } from '../storage/sql-object-store.js';
import { migrateStorageVersion } from '../storage/storage-version-migration.js';
import { databaseLocation, type DatabaseLocation } from './options/storage.js';
import { migrationProgress } from './migration-progress.js';
import { openDatabase } from './open-database.js';
import { servedGroups } from './server.js';

const usage = `usage: npm run storage-migrate -- [--page-size N] [--data-dir DIR] [--database-url URL]
environment: DATA_DIR, DATABASE_URL`;

/** What the command is told. */
interface Options {
  readonly location: DatabaseLocation;
  /** Objects per page: the keys one query reads. */
  readonly pageSize: number;
}

function parse(argv: readonly string[], env: NodeJS.ProcessEnv): Options {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      'page-size': { type: 'string', default: '500' },
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) throw new Error(usage);
  const pageSize = Number(values['page-size']);
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new Error(`--page-size must be a positive integer, got "${values['page-size']}"\n${usage}`);
  return { location: databaseLocation(values, env), pageSize };
}

/** Migrates each served resource in turn, printing its progress and then what it did. */
async function migrateAll(store: SqlObjectStore, pageSize: number): Promise<void> {
  for (const group of servedGroups) {
    for (const resource of group.resources) {
      const name = storageName(resource);
      const progress = migrationProgress(name);
      const result = await migrateStorageVersion(resourceStorage(store, resource), { pageSize, onProgress: (p) => progress.update(p) });
      progress.stop();
      const others = result.total - result.rewritten;
      const byOthers = others > 0 ? ` (${others} migrated or deleted by other writes first)` : '';
      console.log(`${name}: ${result.rewritten} of ${result.total} rewritten in ${storageVersioningOf(resource).apiVersion}${byOthers}`);
    }
  }
}

async function main(): Promise<void> {
  let options: Options;
  try {
    options = parse(process.argv.slice(2), process.env);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
  const logger = pino({ level: 'warn' }, pino.destination(2));
  const database = await openDatabase(options.location, logger);
  try {
    // The column that tells which rows are stale comes with a schema migration; the server would run it too.
    await migrateToLatest(database);
    const store = await SqlObjectStore.open(database, { onBackgroundError: (error) => logger.warn({ err: error }, 'event log') });
    try {
      await migrateAll(store, options.pageSize);
    } finally {
      await store.close();
    }
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
