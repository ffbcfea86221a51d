import { defineConfig } from 'vitest/config';

/** Test configuration: one shared PostgreSQL cluster per run, two workers for two cores. */
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
  },
});
