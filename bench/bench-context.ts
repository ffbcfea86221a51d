/** What every part of a bench run shares, and how one measured step runs. */
import type { PostgresCluster } from './postgres-cluster.js';
import type { BareKoa } from './bare-koa.js';
import type { PgbenchTarget } from './pgbench.js';
import type { Profile } from './profile.js';
import type { Progress } from './progress.js';
import type { Collector, Subject } from './results.js';

/** The run's settings, its collector and the servers every backend shares. */
export interface BenchContext {
  readonly profile: Profile;
  readonly collector: Collector;
  readonly progress: Progress;
  /** A temporary directory for data directories, logs and scripts. */
  readonly workDir: string;
  /** The bare server of the limits of the GET, CPU and (on PostgreSQL) watch rows. */
  readonly koa: BareKoa;
  /** The throwaway PostgreSQL and pgbench's database, when PostgreSQL is benched. */
  readonly postgres?: { readonly cluster: PostgresCluster; readonly pgbench: PgbenchTarget };
}

/**
 * Runs one step of row `id`, shown in the progress display; a failure is recorded in
 * the row and the bench goes on with the next step.
 */
export async function step(ctx: BenchContext, backend: Subject, id: string, name: string, work: () => Promise<void>): Promise<void> {
  ctx.progress.step(`${backend}: ${name}`);
  try {
    await work();
  } catch (error) {
    ctx.collector.fail(backend, id, error);
    ctx.progress.log(`${backend}: ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `1 of 3` for step names. */
export const runName = (ctx: BenchContext, run: number): string => (ctx.profile.runs > 1 ? ` (run ${run + 1} of ${ctx.profile.runs})` : '');
