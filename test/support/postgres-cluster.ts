/** The throwaway PostgreSQL clusters tests start: the bench's (the bench may not import tests). */
export { createDatabase, PostgresClusterError, startPostgresCluster } from '../../bench/postgres-cluster.js';
export type { PostgresCluster, PostgresClusterOptions } from '../../bench/postgres-cluster.js';
