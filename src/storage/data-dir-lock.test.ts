// One process per PGlite data directory: a second start is refused while the first holds the lock.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockDataDir } from './data-dir-lock.js';

describe('lockDataDir', () => {
  let parent: string;
  let dataDir: string;
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'cairn-lock-'));
    dataDir = join(parent, 'pglite');
  });
  afterEach(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it('refuses a directory held open, and gives it up on release', async () => {
    const release = await lockDataDir(dataDir);
    await expect(lockDataDir(dataDir)).rejects.toThrow(`in use by process ${process.pid}`);
    await release();
    await (
      await lockDataDir(dataDir)
    )();
  });

  it('refuses a directory another running process holds', async () => {
    // This test's parent process is running, and is not this one.
    await writeFile(`${dataDir}.lock`, `${process.ppid}\n`);
    await expect(lockDataDir(dataDir)).rejects.toThrow(`in use by process ${process.ppid}`);
  });

  it.each([
    ['a process that has exited (killed)', () => spawnSync(process.execPath, ['-e', '']).pid],
    ['this process, which does not hold it (a restarted container reusing pids)', () => process.pid],
    ['nobody readable', () => 'garbage'],
  ])('takes over a lock file left by %s', async (_, holder) => {
    await writeFile(`${dataDir}.lock`, `${holder()}\n`);
    await (
      await lockDataDir(dataDir)
    )();
  });
});
