/**
 * What `npm start` prints once it serves: where it listens, the kubeconfig, a command
 * to try, and how durable its storage is — embedded PGlite's fsync=off next to the way
 * to PostgreSQL — and that SIGTERM then stops it cleanly.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnServer } from '../support/server-process.js';
import { testDatabaseUrl } from '../support/test-database.js';

/** Runs the server until its banner is complete, then SIGTERMs it; resolves with the banner and the exit code. */
async function bannerOf(extraArgs: readonly string[]): Promise<{ banner: string; dataDir: string; code: number | null }> {
  const server = await spawnServer(['--no-controller', ...extraArgs]);
  try {
    // A blank line ends the banner.
    await server.until('its banner', () => server.stderr().includes('\n\n'));
    server.child.kill('SIGTERM');
    return { banner: server.stderr(), dataDir: server.dataDir, code: await server.exited };
  } finally {
    await server.stop();
  }
}

describe('the start banner', () => {
  it('on embedded PGlite: the URL, the kubeconfig, a command, and that fsync is off', async () => {
    const { banner, dataDir, code } = await bannerOf([]);
    const kubeconfig = join(dataDir, 'kubeconfig');
    expect(banner).toMatch(/^Cairn serves cairn\.dev at https:\/\/127\.0\.0\.1:\d+$/m);
    expect(banner).toContain(`  kubeconfig: ${kubeconfig}\n`);
    expect(banner).toContain(`  try:        kubectl --kubeconfig ${kubeconfig} get pipelines,runnerclasses -A\n`);
    expect(banner).toContain(`  storage:    embedded PGlite in ${join(dataDir, 'pglite')}\n`);
    expect(banner).toContain('embedded PGlite runs with fsync=off: a crash of the machine can lose writes it acknowledged.');
    expect(banner).toContain('run on PostgreSQL: set DATABASE_URL');
    expect(code).toBe(0);
  });

  it('on PostgreSQL with fsync on: no warning, and no password printed', async () => {
    const url = new URL(await testDatabaseUrl());
    url.password = url.password || 'unused-secret';
    const { banner, code } = await bannerOf(['--database-url', url.toString()]);
    expect(banner).toMatch(/^ {2}storage: {4}PostgreSQL at postgres(ql)?:\/\/.*$/m);
    expect(banner).not.toContain(url.password);
    expect(banner).toContain(`  wake-ups:   LISTEN on ${url.hostname}:${url.port}\n`);
    expect(banner).not.toContain('WARNING');
    expect(code).toBe(0);
  });
});
