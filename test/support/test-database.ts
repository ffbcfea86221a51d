import { inject } from 'vitest';
import { createDatabase } from './postgres-cluster.js';

/**
 * Creates a fresh, empty database on the run's PostgreSQL server (started by the global
 * setup, or `CAIRN_TEST_DATABASE_URL`) and returns its URL. Call it once per test file,
 * typically in `beforeAll`.
 *
 * @example
 * let url: string;
 * beforeAll(async () => {
 *   url = await testDatabaseUrl();
 * });
 */
export async function testDatabaseUrl(): Promise<string> {
  const serverUrl: string | undefined = inject('postgresUrl');
  if (serverUrl === undefined) {
    throw new Error("no 'postgresUrl' was provided: run the tests with vitest.config.ts, whose globalSetup starts PostgreSQL");
  }
  return createDatabase(serverUrl);
}
