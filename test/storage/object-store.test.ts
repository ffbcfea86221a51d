/**
 * The storage conformance suite on both SQL backends, as plain SQL storage (every read
 * by index) and decorated with an object cache of 10 objects per resource: smaller than
 * several of the suite's resources, so reads go from memory to the database and back
 * as resources grow past the bound and shrink under it.
 */
import { runStorageConformance } from './conformance.js';
import { openPGliteStorage, openPostgresStorage } from './sql-backends.js';

const sql = { objectCacheSize: 0 };
const cached = { objectCacheSize: 10 };

runStorageConformance('SQL storage on pglite', () => openPGliteStorage(sql));
runStorageConformance('cached storage on pglite (10 objects)', () => openPGliteStorage(cached));
runStorageConformance('SQL storage on postgres', () => openPostgresStorage(sql));
runStorageConformance('cached storage on postgres (10 objects)', () => openPostgresStorage(cached));
