/**
 * What `npm start` prints once it serves: where it listens, the kubeconfig, a command
 * to try, and how durable its storage is — embedded PGlite's fsync=off next to the way
 * to PostgreSQL — and that SIGTERM then stops it cleanly.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../support/test-database.js';

const root = join(import.meta.dirname, '..', '..');

/** Runs the server until its banner is complete, then SIGTERMs it; resolves with the banner and the exit code. */
async function bannerOf(extraArgs: readonly string[]): Promise<{ banner: string; dataDir: string; code: number | null }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cairn-banner-'));
  const args = ['src/server/main.ts', '--port', '0', '--data-dir', dataDir, '--no-controller', ...extraArgs];
  const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };
  // node with tsx as its loader, not tsx's CLI: the CLI relays SIGTERM and, when the child does not
  // acknowledge it within 30 ms (a loaded machine), kills it and exits 143.
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        // A blank line ends the banner.
        if (stderr.includes('\n\n')) resolve();
      });
      void exited.then((code) => reject(new Error(`the server exited (${code}) before printing its banner:\n${stderr}`)));
    });
    child.kill('SIGTERM');
    return { banner: stderr, dataDir, code: await exited };
  } finally {
    child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
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
