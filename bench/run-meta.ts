/** The circumstances of a bench run, as `results.json` records them. */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import pg from 'pg';
import type { BenchMeta } from './bench-results.js';
import { repoRoot } from './repo-root.js';

const git = (...args: string[]): string => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();

/** `PostgreSQL 15.x`, asked of the server at `url`. */
export async function postgresVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return `PostgreSQL ${rows[0].server_version.split(' ')[0]}`;
  } finally {
    await client.end();
  }
}

/** Noted when a run starts: its date, the load average, the clock. */
export interface RunStart {
  readonly date: string;
  readonly load: number;
  readonly at: number;
}

/** Notes the start of a run. */
export const runStart = (): RunStart => ({ date: new Date().toISOString(), load: loadavg()[0], at: performance.now() });

/** The meta of a run that started at `start` and ends now. */
export function runMeta(start: RunStart, profile: BenchMeta['profile'], runs: number, postgres: string | undefined): BenchMeta {
  return {
    commit: git('rev-parse', '--short', 'HEAD'),
    dirty: git('status', '--porcelain', '--untracked-files=no') !== '',
    date: start.date,
    profile,
    runs,
    durationSeconds: (performance.now() - start.at) / 1000,
    node: process.version,
    ...(postgres !== undefined && { postgres }),
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadAverage: { start: Number(start.load.toFixed(2)), end: Number(loadavg()[0].toFixed(2)) },
  };
}
