import { defineConfig } from 'vitest/config';

/** Test configuration: one shared PostgreSQL cluster per run, two workers for two cores. */
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    // The commands tests start serve as one process, as they did before --workers, unless a test asks for more.
    env: { WORKERS: '1' },
  },
});
