/**
 * The watch rows: delivery latency at three loads (Cairn's and kube-apiserver's, and on
 * PostgreSQL the bare Koa server's as the limit), idle watchers' memory, and across replicas.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { runName, step, type BenchContext } from './bench-context.js';
import type { CairnProcess } from './cairn-process.js';
import { mib } from './process-memory.js';
import type { Subject } from './results.js';
import type { Backend } from './rows.js';
import type { ServerAccess } from './server-access.js';
import { measureWatchLatency, type WatchRun, type WatchScenario } from './watch-latency.js';

/** A scenario's label in the chart: `200 watchers × 200/s`. */
const label = (s: WatchScenario): string => `${s.watchers.toLocaleString('en-US')} watchers × ${s.perSecond}/s`;

/** Measures the burst and steady watch rows on `server`. */
export async function watchRows(ctx: BenchContext, backend: Backend, server: CairnProcess): Promise<void> {
  for (const id of ['watch-burst', 'watch-steady'] as const) await watchScenarioRows(ctx, backend, id, server.access);
}

/** The scenario of each watch row of one server. */
const scenarioOf = (ctx: BenchContext, id: 'watch-burst' | 'watch-steady' | 'watch-many'): WatchScenario =>
  ({ 'watch-burst': ctx.profile.watchBurst, 'watch-steady': ctx.profile.watchSteady, 'watch-many': ctx.profile.watchMany })[id];

/**
 * Measures one watch row on the server at `access`, each run in a namespace of its own
 * that `createNamespace`, when given, creates first (kube-apiserver refuses objects in a
 * namespace that does not exist; Cairn has no Namespaces of its own).
 */
export async function watchScenarioRows(
  ctx: BenchContext,
  subject: Subject,
  id: 'watch-burst' | 'watch-steady' | 'watch-many',
  access: ServerAccess,
  createNamespace?: (name: string) => Promise<void>,
): Promise<void> {
  const scenario = scenarioOf(ctx, id);
  for (let run = 0; run < ctx.profile.runs; run++) {
    await step(ctx, subject, id, `${label(scenario)}, ${scenario.writes} creates${runName(ctx, run)}`, async () => {
      const namespace = `${id}-${run}`;
      await createNamespace?.(namespace);
      await bareLimit(ctx, subject, id, run, scenario);
      const result = await measureWatchLatency({ writer: access, watched: access, namespace, scenario });
      record(ctx, subject, id, run, scenario, result);
    });
  }
}

/**
 * Measures the many-watchers row and the idle watchers' memory, each run on a server
 * `start` starts afresh: its RSS before the watchers open is a resting server's, not one
 * holding the garbage of the loads before.
 */
export async function manyWatchersRows(ctx: BenchContext, backend: Backend, start: () => Promise<CairnProcess>): Promise<void> {
  const { profile, collector } = ctx;
  const scenario = profile.watchMany;
  for (let run = 0; run < profile.runs; run++) {
    await step(ctx, backend, 'watch-many', `${label(scenario)}, ${scenario.writes} creates${runName(ctx, run)}`, async () => {
      const server = await start();
      try {
        await sleep(1000);
        const before = server.residentBytes();
        const whenIdle = async (): Promise<void> => {
          const rss = server.residentBytes();
          collector.add(backend, 'idle-watchers', 'cairn', mib(rss - before));
          collector.add(backend, 'idle-watchers', 'secondary', mib(rss));
        };
        const result = await measureWatchLatency({ writer: server.access, watched: server.access, namespace: `watch-many-${run}`, scenario, whenIdle });
        record(ctx, backend, 'watch-many', run, scenario, result);
      } finally {
        await server.stop();
      }
      // After Cairn's run: a server left idle while the limit ran would have shrunk its heap, and its RSS before the watchers with it.
      await bareLimit(ctx, backend, 'watch-many', run, scenario);
    });
  }
}

/** Measures the cross-replica row: creates on `writer`, watchers on `watched`. */
export async function crossReplicaRow(ctx: BenchContext, writer: ServerAccess, watched: ServerAccess): Promise<void> {
  const scenario = ctx.profile.crossReplica;
  for (let run = 0; run < ctx.profile.runs; run++) {
    await step(ctx, 'postgres', 'cross-replica', `across replicas, ${label(scenario)}${runName(ctx, run)}`, async () => {
      const result = await measureWatchLatency({ writer, watched, namespace: `cross-replica-${run}`, scenario });
      record(ctx, 'postgres', 'cross-replica', run, scenario, result);
    });
  }
}

/**
 * The row's limit on PostgreSQL, measured beside Cairn's run: the same scenario on
 * the bare Koa server, which stores each create as one row of the same cluster and writes
 * it to its watches with nothing of Kubernetes between (bench/bare-koa-server.ts).
 */
async function bareLimit(ctx: BenchContext, subject: Subject, id: string, run: number, scenario: WatchScenario): Promise<void> {
  if (subject !== 'postgres' || !ctx.koa.writes) return;
  const result = await measureWatchLatency({ writer: ctx.koa.access, watched: ctx.koa.access, namespace: `${id}-bare-${run}`, scenario });
  ctx.collector.add(subject, id, 'limit', result.p99);
  if (result.missing > 0) ctx.collector.note(subject, id, `run ${run + 1}: the bare server missed ${result.missing} deliveries`);
}

function record(ctx: BenchContext, backend: Subject, id: string, run: number, scenario: WatchScenario, result: WatchRun): void {
  const { collector } = ctx;
  collector.add(backend, id, 'cairn', result.p99);
  collector.add(backend, id, 'secondary', result.p50);
  collector.samples(backend, id, `${id === 'cross-replica' ? 'across replicas, ' : ''}${label(scenario)}`, result.latenciesMs);
  if (result.missing > 0) collector.note(backend, id, `run ${run + 1}: ${result.missing} deliveries had not arrived 30 s after the last create`);
  if (id === 'watch-many')
    collector.note(backend, id, `run ${run + 1}: the bench's own watchers and writer used ${result.clientCores.toFixed(2)} of the 2 cores`);
  if (result.failedWrites > 0) collector.note(backend, id, `run ${run + 1}: ${result.failedWrites} creates failed`);
}
