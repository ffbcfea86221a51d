/**
 * The storage conformance suite on both SQL backends.
 */
import { runStorageConformance } from './conformance.js';
import { openPGliteStorage, openPostgresStorage } from './sql-backends.js';

runStorageConformance('object store on pglite', openPGliteStorage);
runStorageConformance('object store on postgres', openPostgresStorage);
