/**
 * One process at a time on a PGlite data directory. PGlite takes no lock of its own,
 * and two Postgres instances on one directory corrupt it: a second server, or
 * `npm run storage-migrate` while the server runs, must be refused. The lock is a file
 * beside the directory naming its holder's pid, as Postgres' postmaster.pid does; a
 * file left by a process that is gone (killed) is taken over.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The lock files this process holds: its own pid in any other is stale (a container restarted, its pids reused). */
const held = new Set<string>();

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Locks `dataDir` for this process; returns the release. Throws when another running process holds it. */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const path = `${dataDir}.lock`;
  await mkdir(dirname(path), { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(path, `${process.pid}\n`, { flag: 'wx' });
      held.add(path);
      return async () => {
        held.delete(path);
        await rm(path, { force: true });
      };
    } catch (error) {
      // A second EEXIST: another process took over the same stale file first.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
    }
    const holder = Number((await readFile(path, 'utf8').catch(() => '')).trim());
    if (held.has(path) || isRunning(holder)) {
      throw new Error(
        `the data directory ${dataDir} is in use by process ${holder}: PGlite serves one process at a time (remove ${path} if that process is not Cairn)`,
      );
    }
    await rm(path, { force: true });
  }
}
