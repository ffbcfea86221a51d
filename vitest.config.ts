import { defineConfig } from 'vitest/config';

/**
 * Test configuration: one shared PostgreSQL cluster per run, two workers for two cores.
 *
 * A worker runs its files one after another in one process (`isolate: false`): every test
 * file starts and stops what it uses (servers, clients, clusters, timers), so none needs a
 * fresh process, and each would otherwise pay for one, and for importing the server's
 * modules and compiling PGlite again: the unit tests under src/ took 128 s isolated and 51 s
 * not, side by side on the same loaded machine.
 */
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    isolate: false,
    // The commands tests start serve as one process, as they did before --workers, unless a test asks for more.
    env: { WORKERS: '1' },
  },
});
