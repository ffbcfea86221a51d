/**
 * An empty PGlite cluster, made once per test run, that a test server's fresh data
 * directory starts from: PGlite's initdb costs about 2.5 s of CPU at every fresh start (and
 * the suite starts dozens), opening a copy of a cluster it made costs 0.3 s. The copy is
 * what initdb would have written; migrations and the server's own objects still run and
 * are written at each start, as on a new machine.
 */
import { PGlite } from '@electric-sql/pglite';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { pgliteDirectory } from '../../src/server/open-database.js';

/** Makes the template (for the global setup); resolves with its directory and the removal of it. */
export async function makePgliteTemplate(): Promise<{ directory: string; remove: () => Promise<void> }> {
  const parent = await mkdtemp(join(tmpdir(), 'cairn-pglite-template-'));
  const directory = join(parent, 'pglite');
  const pglite = new PGlite(directory);
  await pglite.waitReady;
  await pglite.close();
  return { directory, remove: () => rm(parent, { recursive: true, force: true }) };
}

/** Copies the run's template to where a server with data directory `dataDir` keeps PGlite's files. */
export async function seedPgliteDataDir(dataDir: string): Promise<void> {
  const template: string | undefined = inject('pgliteTemplate');
  if (template === undefined) throw new Error("no 'pgliteTemplate' was provided: run the tests with vitest.config.ts, whose globalSetup makes it");
  await cp(template, pgliteDirectory(dataDir), { recursive: true });
}
