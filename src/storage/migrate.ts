/**
 * Brings the database schema up to date with the Kysely migrations in migrations/.
 */
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import * as objectStore from '../../migrations/0001-object-store.js';
import * as eventPriorState from '../../migrations/0002-event-prior-state.js';
import * as pipelineLogs from '../../migrations/0003-pipeline-logs.js';
import * as objectApiVersion from '../../migrations/0004-object-api-version.js';
import * as readsByIndex from '../../migrations/0005-reads-by-index.js';
import * as ownerReferences from '../../migrations/0006-owner-references.js';
import * as objectText from '../../migrations/0007-object-text.js';
import * as logSizes from '../../migrations/0008-log-sizes.js';
import * as historyMarks from '../../migrations/0009-history-marks.js';
import * as eventOrigins from '../../migrations/0010-event-origins.js';
import * as logOffsets from '../../migrations/0011-log-offsets.js';
import * as deletedEvents from '../../migrations/0012-deleted-events.js';
import * as leases from '../../migrations/0013-leases.js';
import * as logRemovedBytes from '../../migrations/0014-log-removed-bytes.js';
import type { Database } from './database.js';

// Listed here rather than read from disk so the same code runs from source and from a build.
const migrations: Readonly<Record<string, Migration>> = Object.freeze({
  '0001-object-store': objectStore,
  '0002-event-prior-state': eventPriorState,
  '0003-pipeline-logs': pipelineLogs,
  '0004-object-api-version': objectApiVersion,
  '0005-reads-by-index': readsByIndex,
  '0006-owner-references': ownerReferences,
  '0007-object-text': objectText,
  '0008-log-sizes': logSizes,
  '0009-history-marks': historyMarks,
  '0010-event-origins': eventOrigins,
  '0011-log-offsets': logOffsets,
  '0012-deleted-events': deletedEvents,
  '0013-leases': leases,
  '0014-log-removed-bytes': logRemovedBytes,
});

const provider: MigrationProvider = { getMigrations: async () => ({ ...migrations }) };

/**
 * Runs every pending migration, or those up to and including `target` (a test builds
 * an older schema with it, to migrate rows written under it); throws with the failing
 * migration's error.
 */
export async function migrateToLatest(database: Database, target?: string): Promise<readonly string[]> {
  return database.run(async (db) => {
    const migrator = new Migrator({
      db,
      provider,
      migrationTableName: 'cairn_migrations',
      migrationLockTableName: 'cairn_migrations_lock',
    });
    const { error, results } = target === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(target);
    if (error) throw error as Error;
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  });
}
