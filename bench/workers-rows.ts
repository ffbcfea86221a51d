/**
 * The `--workers` rows (PostgreSQL only: embedded PGlite is one process): creates/s and
 * GET/s of one server run as 1 and as 2 workers, each beside its limit, and what that
 * says of a machine with more cores — Cairn's CPU per request, read from /proc for the
 * primary and its workers, times the cores.
 */
import { availableParallelism, loadavg } from 'node:os';
import { step, type BenchContext } from './bench-context.js';
import { CairnProcess, type CairnOptions } from './cairn-process.js';
import { measureThroughput } from './http-load.js';
import { pipelineBody, pipelinePath, pipelinesPath } from './pipeline-manifest.js';
import { runPgbench } from './pgbench.js';
import { processTreeCpuSeconds } from './process-cpu.js';
import { expectStatus } from './server-access.js';

const namespace = 'bench-workers';
const getName = 'get-me';
const workerCounts = [1, 2] as const;

/** Measures the rows on fresh servers of `location`'s database, one worker count after the other. */
export async function workersRows(ctx: BenchContext, location: CairnOptions): Promise<void> {
  const { profile, collector } = ctx;
  const cpuPerRequestMs: Record<string, number[]> = { creates: [], get: [] };
  let seq = 0;
  for (const workers of workerCounts) {
    const figure = workers === 1 ? 'secondary' : 'cairn';
    await step(ctx, 'postgres', 'creates-workers', `--workers ${workers}: creates and GET`, async () => {
      const server = await CairnProcess.start({ ...location, workers });
      try {
        await expectStatus(server.access, 'POST', pipelinesPath(namespace), { body: pipelineBody(`${getName}-${workers}`) });
        let cpu = processTreeCpuSeconds(server.pid);
        const creates = await measureThroughput(server.access, profile.createClients, profile.loadSeconds, {
          method: 'POST',
          path: pipelinesPath(namespace),
          contentType: 'application/json',
          next: () => ({ body: pipelineBody(`w-${String(seq++).padStart(7, '0')}`) }),
        });
        if (workers === 2) cpuPerRequestMs.creates.push(((processTreeCpuSeconds(server.pid) - cpu) * 1000) / Math.max(1, creates.ok));
        collector.add('postgres', 'creates-workers', figure, creates.perSecond);
        if (workers === 2) collector.add('postgres', 'creates-workers', 'limit', await runPgbench(ctx.postgres!.pgbench, 16, profile.loadSeconds));
        cpu = processTreeCpuSeconds(server.pid);
        const gets = await measureThroughput(server.access, profile.getConnections, profile.loadSeconds, {
          method: 'GET',
          path: pipelinePath(namespace, `${getName}-${workers}`),
        });
        if (workers === 2) cpuPerRequestMs.get.push(((processTreeCpuSeconds(server.pid) - cpu) * 1000) / Math.max(1, gets.ok));
        collector.add('postgres', 'get-workers', figure, gets.perSecond);
        if (workers === 2)
          collector.add(
            'postgres',
            'get-workers',
            'limit',
            (await measureThroughput(ctx.koa.access, profile.getConnections, profile.loadSeconds, { method: 'GET', path: '/' })).perSecond,
          );
        for (const [id, result] of [
          ['creates-workers', creates],
          ['get-workers', gets],
        ] as const)
          if (result.failed > 0) collector.note('postgres', id, `--workers ${workers}: ${result.failed} requests failed or were not 2xx`);
      } finally {
        await server.stop();
      }
    });
  }
  const cores = availableParallelism();
  const load = loadavg()[0].toFixed(1);
  for (const [id, what] of [
    ['creates-workers', 'create'],
    ['get-workers', 'GET'],
  ] as const) {
    const ms = cpuPerRequestMs[id === 'creates-workers' ? 'creates' : 'get'][0];
    if (ms === undefined || !(ms > 0)) continue;
    collector.note(
      'postgres',
      id,
      `Cairn's CPU per ${what} with 2 workers (primary and workers, from /proc): ${ms.toFixed(3)} ms, so C cores serve up to C × ${Math.round(1000 / ms).toLocaleString('en-US')}/s ` +
        `before the database bounds it; this machine has ${cores} cores shared with the database and the load generator (1-minute load ${load}).`,
    );
  }
}
