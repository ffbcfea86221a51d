import type { TestProject } from 'vitest/node';
import { startPostgresCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of a PostgreSQL superuser connection shared by the whole test run. */
    postgresUrl: string;
  }
}

/**
 * Vitest global setup: starts one throwaway PostgreSQL 15 cluster for the whole run and
 * provides its URL as `postgresUrl` (see `testDatabaseUrl()`); the returned teardown
 * stops it and removes its files. When `CAIRN_TEST_DATABASE_URL` is set, that server is
 * used instead and nothing is started.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const externalUrl = process.env['CAIRN_TEST_DATABASE_URL'];
  if (externalUrl !== undefined && externalUrl !== '') {
    project.provide('postgresUrl', externalUrl);
    return async () => undefined;
  }
  const cluster = await startPostgresCluster();
  project.provide('postgresUrl', cluster.url);
  return () => cluster.destroy();
}
