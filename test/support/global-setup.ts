import type { TestProject } from 'vitest/node';
import { ensureGoPrograms, type GoPrograms } from './go-programs.js';
import { makePgliteTemplate } from './pglite-template.js';
import { startPostgresCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of a PostgreSQL superuser connection shared by the whole test run. */
    postgresUrl: string;
    /** Every Go program the tests run (kube-apiserver and etcd for `startKubeControlPlane()`, the client-go program), built once per source. */
    goPrograms: GoPrograms;
    /** An empty PGlite cluster that a test server's fresh data directory starts from (see `seedPgliteDataDir()`). */
    pgliteTemplate: string;
  }
}

/**
 * Vitest global setup: makes sure every Go program the tests run is built (minutes the
 * first time on a machine, with progress on stderr and a time limit of its own: see
 * `ensureGoPrograms`), so that no test hook ever builds one, and provides their paths as
 * `goPrograms`; makes the empty PGlite cluster fresh test servers start from
 * (`pgliteTemplate`); then starts one throwaway PostgreSQL 15
 * cluster for the whole run and provides its URL as `postgresUrl` (see
 * `testDatabaseUrl()`); the returned teardown stops it and removes its files. When
 * `CAIRN_TEST_DATABASE_URL` is set, that server is used instead and nothing is started.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  project.provide('goPrograms', await ensureGoPrograms());
  const externalUrl = process.env['CAIRN_TEST_DATABASE_URL'];
  const external = externalUrl !== undefined && externalUrl !== '';
  // PGlite's initdb in this process and PostgreSQL's in its own: side by side, on two cores.
  const [template, cluster] = await Promise.all([makePgliteTemplate(), external ? undefined : startPostgresCluster()]);
  project.provide('pgliteTemplate', template.directory);
  project.provide('postgresUrl', cluster?.url ?? externalUrl!);
  return async () => {
    await cluster?.destroy();
    await template.remove();
  };
}
