/**
 * `npm run bench [-- --quick] [--backend postgres|pglite] [--out DIR] [--no-kube]`:
 * measures every row of issue 12's table on PostgreSQL and on PGlite, each beside its
 * limit measured in the same run, then the rows issue 28 compares on kube-apiserver + etcd
 * serving Pipelines as a CRD (bench/kube-rows.ts; not with `--no-kube`), and writes
 * `results.json` and `report.md` (into `bench/` by default).
 *
 * `npm run bench -- --scale [N] [--quick] [--backend postgres|pglite] [--soak-seconds S]`:
 * the scale bench of issue 24 (bench/scale-bench.ts) at N Pipelines (1,000,000 by
 * default, 20,000 with `--quick`), on PostgreSQL unless told otherwise; its figures go
 * into the `scale` part of `results.json` and `report.md`, the rest kept as it was.
 *
 * `npm run bench -- --history [N] [--revisions 10] [--quick] [--backend postgres|pglite]`:
 * the history bench of issue 26 (bench/history-bench.ts) at N Pipelines of 10 revisions
 * each (1,000,000 by default, 2,000 with `--quick`), on PostgreSQL unless told otherwise,
 * into the `history` part of `results.json` and `report.md`.
 *
 * `npm run bench -- --faults`: what a switchover, a killed postmaster and a killed Patroni
 * agent cost Cairn's writers on a three-member Patroni cluster (issue 27,
 * bench/faults-bench.ts), into the `faults` part of `results.json` and `report.md`.
 *
 * Everything it starts — PostgreSQL, Cairn, the bare Koa server, kube-apiserver and etcd —
 * listens on loopback and is stopped before it exits; every load is bounded in time or count.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startPostgresCluster, type PostgresCluster } from './postgres-cluster.js';
import { benchBackend } from './backend-suite.js';
import { killChildren } from './children.js';
import type { BenchContext } from './bench-context.js';
import type { BenchMeta, BenchResults } from './bench-results.js';
import { previousResults, writeResults } from './results-file.js';
import { startBareKoa, type BareKoa } from './bare-koa.js';
import { preparePgbench } from './pgbench.js';
import { fullProfile, quickProfile, type Profile } from './profile.js';
import { Progress } from './progress.js';
import { repoRoot } from './repo-root.js';
import { Collector } from './results.js';
import { rowSpecs, type Backend } from './rows.js';
import { postgresVersion, runMeta, runStart } from './run-meta.js';
import { runScaleBench, scaleSteps, type ScaleOutcome } from './scale-bench.js';
import { historySteps, runHistoryBench, type HistoryOutcome } from './history-bench.js';
import { runFaultsBench } from './faults-bench.js';
import { removeKubePlaneDirectory, startKubePlane, type KubePlane } from './kube-plane.js';
import { kubeRows, kubeSteps } from './kube-rows.js';

/** The steps {@link benchBackend} reports for one backend, for the progress bar's total. */
function plannedSteps(profile: Profile, backend: Backend): number {
  // On PostgreSQL also the cross-replica runs and the two --workers steps.
  return 2 + 13 * profile.runs + (backend === 'postgres' ? profile.runs + 2 : 0);
}

/** A scale run's settings. */
interface ScaleSettings {
  readonly count: number;
  readonly namespaces: number;
  readonly soakSeconds: number;
}

/** A history run's settings. */
interface HistorySettings {
  readonly count: number;
  readonly namespaces: number;
  readonly revisions: number;
}

function options(): {
  profile: Profile;
  backends: Backend[];
  outDir: string;
  kube: boolean;
  scale?: ScaleSettings;
  history?: HistorySettings;
  faults: boolean;
} {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      quick: { type: 'boolean', default: false },
      backend: { type: 'string' },
      out: { type: 'string' },
      scale: { type: 'boolean', default: false },
      history: { type: 'boolean', default: false },
      faults: { type: 'boolean', default: false },
      'no-kube': { type: 'boolean', default: false },
      revisions: { type: 'string', default: '10' },
      namespaces: { type: 'string', default: '100' },
      'soak-seconds': { type: 'string' },
    },
  });
  if ([values.scale, values.history, values.faults].filter(Boolean).length > 1) throw new Error('--scale, --history and --faults are separate runs');
  const seeded = values.scale || values.history;
  const backend = values.backend ?? (seeded ? 'postgres' : 'both');
  if (backend !== 'both' && backend !== 'postgres' && backend !== 'pglite') throw new Error(`--backend: postgres, pglite or both, not ${backend}`);
  const count = Number(positionals[0] ?? (values.history && values.quick ? 2_000 : values.quick ? 20_000 : 1_000_000));
  const revisions = Number(values.revisions);
  const namespaces = Number(values.namespaces);
  const soakSeconds = Number(values['soak-seconds'] ?? (values.quick ? 2 : 600));
  if (positionals.length > (seeded ? 1 : 0)) throw new Error(`unexpected arguments: ${positionals.join(' ')} (the object count follows --scale or --history)`);
  for (const [name, v] of [
    ['--scale', count],
    ['--namespaces', namespaces],
    ['--soak-seconds', soakSeconds],
    ['--revisions', revisions],
  ] as const)
    if (!Number.isSafeInteger(v) || v < 1) throw new Error(`${name}: a positive whole number, not ${v}`);
  return {
    profile: values.quick ? quickProfile : fullProfile,
    backends: backend === 'both' ? ['postgres', 'pglite'] : [backend],
    outDir: resolve(values.out ?? join(repoRoot, 'bench')),
    kube: !values['no-kube'],
    ...(values.scale && { scale: { count, namespaces, soakSeconds } }),
    ...(values.history && { history: { count, namespaces, revisions } }),
    faults: values.faults,
  };
}

/** Removes the run's directory, or keeps the servers' logs (not their data) when something failed. */
async function cleanUp(workDir: string, failed: number): Promise<void> {
  if (failed) {
    for (const entry of await readdir(workDir)) if (!entry.endsWith('.log')) await rm(join(workDir, entry), { recursive: true, force: true });
    console.error(`${failed} figures failed; the servers' logs are in ${workDir}`);
    process.exitCode = 1;
  } else {
    await rm(workDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { profile, backends, outDir, kube, scale, history, faults } = options();
  if (faults) return faultsMain(outDir);
  if (scale) return seededMain(profile, backends, outDir, scaleBench(scale));
  if (history) return seededMain(profile, backends, outDir, historyBench(history));
  const start = runStart();
  const workDir = await mkdtemp(join(tmpdir(), 'cairn-bench-'));
  runDirectory = workDir;
  const progress = new Progress(1 + backends.reduce((sum, b) => sum + plannedSteps(profile, b), 0) + (kube ? kubeSteps(profile.runs) : 0));
  const collector = new Collector();
  let koa: BareKoa | undefined;
  let cluster: PostgresCluster | undefined;
  let postgres: string | undefined;
  let context: BenchContext | undefined;
  try {
    progress.step(backends.includes('postgres') ? 'starting PostgreSQL and the bare Koa server' : 'starting the bare Koa server');
    if (backends.includes('postgres')) {
      cluster = await startPostgresCluster();
      postgres = await postgresVersion(cluster.url);
    }
    // On PostgreSQL the bare server is the write path's limit too, storing in the same cluster.
    koa = await startBareKoa(join(workDir, 'koa-pki'), await cluster?.createDatabase('bench_bare'));
    context = { profile, collector, progress, workDir, koa };
    if (cluster) context = { ...context, postgres: { cluster, pgbench: await preparePgbench(await cluster.createDatabase('bench_pgbench'), workDir) } };
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
  // After Cairn's rows, with PostgreSQL stopped: neither server idles beside the other's loads.
  const kubeVersions = kube && context ? await benchKube(context) : undefined;
  const rows = collector.rows(profile, backends, kube);
  const meta = { ...runMeta(start, profile.name, profile.runs, postgres), ...(kubeVersions && { kube: kubeVersions }) };
  const results: BenchResults = { meta, rows, latencyCurves: collector.curves(), ...(kube && { kubeNotes: collector.kubeNotes() }) };
  // The other commands' parts stay as they were.
  const { meta: _meta, rows: _rows, latencyCurves: _curves, kubeNotes: _kubeNotes, ...others } = await previousResults(outDir);
  await writeResults(outDir, { ...others, ...results });
  progress.stop();
  await cleanUp(workDir, rows.filter((r) => r.error !== undefined || r.kubeError !== undefined).length);
}

/** The kube-apiserver column (bench/kube-rows.ts); returns the versions measured, undefined when the control plane did not start. */
async function benchKube(ctx: BenchContext): Promise<string | undefined> {
  ctx.progress.step('kube: starting kube-apiserver and etcd (fsync on) with the Pipelines CRD');
  let plane: KubePlane;
  try {
    plane = await startKubePlane((line) => ctx.progress.log(line));
  } catch (error) {
    for (const spec of rowSpecs) if (spec.kube) ctx.collector.fail('kube', spec.id, error);
    ctx.progress.log(`kube: did not start: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
  try {
    await kubeRows(ctx, plane);
  } catch (error) {
    // Only the first steps throw (a namespace or the GET row's Pipeline not created): every row is missing then.
    for (const spec of rowSpecs) if (spec.kube) ctx.collector.fail('kube', spec.id, error);
    ctx.progress.log(`kube: stopped early: ${error instanceof Error ? error.message : String(error)}\n${await plane.logTail()}`);
  } finally {
    await plane.stop();
  }
  return plane.versions;
}

/** The Patroni faults, into the `faults` part of the results. */
async function faultsMain(outDir: string): Promise<void> {
  console.error('running test/storage/patroni-failover.test.ts (about a minute and a half)');
  const faults = await runFaultsBench();
  await writeResults(outDir, { ...(await previousResults(outDir)), faults });
}

/** What a run of one backend reports, whatever the seeded bench. */
interface SeededOutcome {
  readonly figures: readonly { readonly value?: number }[];
  readonly notes: readonly string[];
}

/** A bench that seeds a database and measures it (`--scale`, `--history`): what tells one from the other. */
interface SeededBench<Outcome extends SeededOutcome, Settings extends object> {
  /** Its part of `results.json`, which also names its work directory and database. */
  readonly part: 'scale' | 'history';
  /** The steps it reports per backend, for the progress bar's total. */
  readonly steps: number;
  /** What its results' meta records beside the run's circumstances. */
  readonly settings: Settings;
  run(backend: Backend, where: { quick: boolean; workDir: string; databaseUrl: string | undefined; progress: Progress }): Promise<Outcome>;
}

/** A seeded bench on each of `backends`, into its part of the results, the other parts kept. */
async function seededMain<Outcome extends SeededOutcome, Settings extends object>(
  profile: Profile,
  backends: readonly Backend[],
  outDir: string,
  bench: SeededBench<Outcome, Settings>,
): Promise<void> {
  const workDir = await mkdtemp(join(tmpdir(), `cairn-bench-${bench.part}-`));
  runDirectory = workDir;
  const progress = new Progress(1 + backends.length * bench.steps);
  const runs: Partial<Record<Backend, Outcome & { meta: BenchMeta & Settings }>> = {};
  let failed = 0;
  let cluster: PostgresCluster | undefined;
  try {
    progress.step(backends.includes('postgres') ? 'starting PostgreSQL' : 'starting');
    cluster = backends.includes('postgres') ? await startPostgresCluster() : undefined;
    for (const backend of backends) {
      const start = runStart();
      const databaseUrl = backend === 'postgres' ? await cluster!.createDatabase(`cairn_${bench.part}`) : undefined;
      const outcome = await bench.run(backend, { quick: profile.name === 'quick', workDir, databaseUrl, progress });
      const postgres = databaseUrl === undefined ? undefined : await postgresVersion(databaseUrl);
      runs[backend] = { meta: { ...runMeta(start, profile.name, 1, postgres), ...bench.settings }, ...outcome };
      failed += outcome.notes.length + outcome.figures.filter((f) => f.value === undefined).length;
    }
  } finally {
    await cluster?.destroy();
  }
  const previous = await previousResults(outDir);
  await writeResults(outDir, { ...previous, [bench.part]: { ...previous[bench.part], ...runs } });
  progress.stop();
  await cleanUp(workDir, failed);
}

/** The scale bench (bench/scale-bench.ts). */
const scaleBench = (settings: ScaleSettings): SeededBench<ScaleOutcome, ScaleSettings> => ({
  part: 'scale',
  steps: scaleSteps(settings.count),
  settings,
  run: (backend, where) => runScaleBench({ ...settings, ...where, backend }),
});

/** The history bench (bench/history-bench.ts), each backend in a directory of its own. */
const historyBench = (settings: HistorySettings): SeededBench<HistoryOutcome, { count: number; revisions: number }> => ({
  part: 'history',
  steps: historySteps,
  settings: { count: settings.count, revisions: settings.revisions },
  run: (backend, where) => runHistoryBench({ ...settings, ...where, workDir: join(where.workDir, backend) }),
});

/** The temporary directory of the run, removed when the run is interrupted. */
let runDirectory: string | undefined;

/** Ends what the bench started (servers now; PostgreSQL, kube-apiserver and etcd through their own exit hooks) and its files. */
function interrupted(code: number): void {
  killChildren();
  removeKubePlaneDirectory();
  if (runDirectory !== undefined) rmSync(runDirectory, { recursive: true, force: true, maxRetries: 5 });
  process.exit(code);
}
process.once('SIGINT', () => interrupted(130));
process.once('SIGTERM', () => interrupted(143));

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
