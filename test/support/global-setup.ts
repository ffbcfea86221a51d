import type { TestProject } from 'vitest/node';
import { ensureKubeBinaries, type KubeBinaries } from './kube-binaries.js';
import { startPostgresCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of a PostgreSQL superuser connection shared by the whole test run. */
    postgresUrl: string;
    /** kube-apiserver and etcd for `startKubeControlPlane()`, built once per pinned version. */
    kubeBinaries: KubeBinaries;
  }
}

/**
 * Vitest global setup: makes sure kube-apiserver and etcd are built (minutes the first
 * time on a machine, with progress on stderr; global setup has no hook timeout, test
 * files do) and provides them as `kubeBinaries`; then starts one throwaway PostgreSQL 15
 * cluster for the whole run and provides its URL as `postgresUrl` (see
 * `testDatabaseUrl()`); the returned teardown stops it and removes its files. When
 * `CAIRN_TEST_DATABASE_URL` is set, that server is used instead and nothing is started.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  project.provide('kubeBinaries', await ensureKubeBinaries());
  const externalUrl = process.env['CAIRN_TEST_DATABASE_URL'];
  if (externalUrl !== undefined && externalUrl !== '') {
    project.provide('postgresUrl', externalUrl);
    return async () => undefined;
  }
  const cluster = await startPostgresCluster();
  project.provide('postgresUrl', cluster.url);
  return () => cluster.destroy();
}
