/**
 * `npm run bench [-- --quick] [--backend postgres|pglite] [--out DIR]`: measures every
 * row of issue 12's table on PostgreSQL and on PGlite, each beside its limit measured in
 * the same run, and writes `results.json` and `report.md` (into `bench/` by default).
 * Everything it starts — PostgreSQL, Cairn, the bare Koa server — listens on loopback
 * and is stopped before it exits; every load is bounded in time or count.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import * as prettier from 'prettier';
import { startPostgresCluster, type PostgresCluster } from './postgres-cluster.js';
import { benchBackend } from './backend-suite.js';
import { killChildren } from './children.js';
import type { BenchContext } from './bench-context.js';
import type { BenchResults } from './bench-results.js';
import { startBareKoa, type BareKoa } from './bare-koa.js';
import { preparePgbench } from './pgbench.js';
import { fullProfile, quickProfile, type Profile } from './profile.js';
import { Progress } from './progress.js';
import { renderReport } from './report.js';
import { repoRoot } from './repo-root.js';
import { Collector } from './results.js';
import type { Backend } from './rows.js';

/** The steps {@link benchBackend} reports for one backend, for the progress bar's total. */
function plannedSteps(profile: Profile, backend: Backend): number {
  return 2 + 13 * profile.runs + (backend === 'postgres' ? profile.runs : 0);
}

function options(): { profile: Profile; backends: Backend[]; outDir: string } {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean', default: false }, backend: { type: 'string', default: 'both' }, out: { type: 'string' } },
  });
  const backend = values.backend;
  if (backend !== 'both' && backend !== 'postgres' && backend !== 'pglite') throw new Error(`--backend: postgres, pglite or both, not ${backend}`);
  return {
    profile: values.quick ? quickProfile : fullProfile,
    backends: backend === 'both' ? ['postgres', 'pglite'] : [backend],
    outDir: resolve(values.out ?? join(repoRoot, 'bench')),
  };
}

const git = (...args: string[]): string => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();

async function postgresVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return `PostgreSQL ${rows[0].server_version.split(' ')[0]}`;
  } finally {
    await client.end();
  }
}

/** Writes `text` to `file` as prettier formats it with the repository's settings, so the committed outputs pass `prettier --check`. */
async function writeFormatted(file: string, text: string): Promise<void> {
  const config = (await prettier.resolveConfig(join(repoRoot, 'bench', basename(file)))) ?? {};
  await writeFile(file, await prettier.format(text, { ...config, filepath: file }));
}

async function main(): Promise<void> {
  const { profile, backends, outDir } = options();
  const date = new Date().toISOString();
  const loadAtStart = loadavg()[0];
  const started = performance.now();
  const workDir = await mkdtemp(join(tmpdir(), 'cairn-bench-'));
  runDirectory = workDir;
  const progress = new Progress(1 + backends.reduce((sum, b) => sum + plannedSteps(profile, b), 0));
  const collector = new Collector();
  let koa: BareKoa | undefined;
  let cluster: PostgresCluster | undefined;
  let postgres: string | undefined;
  try {
    progress.step(backends.includes('postgres') ? 'starting the bare Koa server and PostgreSQL' : 'starting the bare Koa server');
    koa = await startBareKoa(join(workDir, 'koa-pki'));
    let context: BenchContext = { profile, collector, progress, workDir, koa };
    if (backends.includes('postgres')) {
      cluster = await startPostgresCluster();
      postgres = await postgresVersion(cluster.url);
      context = { ...context, postgres: { cluster, pgbench: await preparePgbench(await cluster.createDatabase('bench_pgbench'), workDir) } };
    }
    for (const backend of backends) {
      try {
        await benchBackend(context, backend);
      } catch (error) {
        collector.fail(backend, 'time-to-ready', error);
        progress.log(`${backend}: stopped early: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  } finally {
    await koa?.stop();
    await cluster?.destroy();
  }
  const rows = collector.rows(profile, backends);
  const results: BenchResults = {
    meta: {
      commit: git('rev-parse', '--short', 'HEAD'),
      dirty: git('status', '--porcelain', '--untracked-files=no') !== '',
      date,
      profile: profile.name,
      runs: profile.runs,
      durationSeconds: (performance.now() - started) / 1000,
      node: process.version,
      ...(postgres !== undefined && { postgres }),
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU',
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      loadAverage: { start: Number(loadAtStart.toFixed(2)), end: Number(loadavg()[0].toFixed(2)) },
    },
    rows,
    latencyCurves: collector.curves(),
  };
  await mkdir(outDir, { recursive: true });
  await writeFormatted(join(outDir, 'results.json'), JSON.stringify(results));
  await writeFormatted(join(outDir, 'report.md'), renderReport(results));
  progress.stop();
  const failed = rows.filter((r) => r.error !== undefined);
  if (failed.length) {
    // Keep the servers' logs, not their data (the LIST rows' objects are a gigabyte).
    for (const entry of await readdir(workDir)) if (!entry.endsWith('.log')) await rm(join(workDir, entry), { recursive: true, force: true });
    console.error(`${failed.length} rows failed; the servers' logs are in ${workDir}`);
    process.exitCode = 1;
  } else {
    await rm(workDir, { recursive: true, force: true });
  }
  console.error(`wrote ${join(outDir, 'results.json')} and ${join(outDir, 'report.md')}`);
}

/** The temporary directory of the run, removed when the run is interrupted. */
let runDirectory: string | undefined;

/** Ends what the bench started (servers now; PostgreSQL through its own exit hook) and its files. */
function interrupted(code: number): void {
  killChildren();
  if (runDirectory !== undefined) rmSync(runDirectory, { recursive: true, force: true, maxRetries: 5 });
  process.exit(code);
}
process.once('SIGINT', () => interrupted(130));
process.once('SIGTERM', () => interrupted(143));

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
