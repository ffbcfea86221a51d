/**
 * The closed-loop rows: creates, GET, updates and merge patches, each run beside its
 * limit in the same run (pgbench or raw PGlite inserts; bare Koa and raw PGlite
 * selects), the server's CPU per create and per GET over those loads beside the bare Koa
 * server's over the same loads, and the create latency at one client.
 */
import { runName, step, type BenchContext } from './bench-context.js';
import type { CairnProcess } from './cairn-process.js';
import type { BareKoa } from './bare-koa.js';
import { measureThroughput, type LoadRequest, type Throughput } from './http-load.js';
import { runPgbench } from './pgbench.js';
import { pipelineBody, pipelinePath, pipelinesPath, revisionAnnotation } from './pipeline-manifest.js';
import { cpuSeconds } from './process-cpu.js';
import type { RawPglite } from './raw-pglite.js';
import type { Backend } from './rows.js';
import { expectStatus, keepAliveAgent, request } from './server-access.js';
import { cpuMsPerRequest, type ServerAndStore, type ServerUsage } from './server-usage.js';
import { percentile } from './stats.js';

const namespace = 'bench';
/** The Pipeline the GET rows read, in the namespace of the creates. */
export const getName = 'get-me';
const poolName = (i: number): string => `u-${String(i).padStart(4, '0')}`;

/**
 * Measures every closed-loop row on `server`, whose CPU `usage` reads (with PostgreSQL's
 * when it stores the objects); `raw` is the raw PGlite of the PGlite limits.
 */
export async function throughputRows(ctx: BenchContext, backend: Backend, server: CairnProcess, usage: ServerUsage, raw: RawPglite | undefined): Promise<void> {
  const { profile, collector } = ctx;
  const access = server.access;
  const add = collector.add.bind(collector, backend);
  const noteFailures = (id: string, run: number, result: Throughput): void => {
    if (result.failed > 0) collector.note(backend, id, `run ${run + 1}: ${result.failed} requests failed or were not 2xx`);
  };
  await expectStatus(access, 'POST', pipelinesPath(namespace), { body: pipelineBody(getName) });
  for (let i = 0; i < profile.updatePool; i++) await expectStatus(access, 'POST', pipelinesPath(namespace), { body: pipelineBody(poolName(i)) });
  let seq = 0;
  const next = (): number => seq++;
  const addCpu = (id: 'cpu-create' | 'cpu-get', ms: ServerAndStore): void => {
    add(id, 'cairn', ms.server);
    if (backend === 'postgres') add(`${id}-store`, 'cairn', ms.serverAndStore);
  };

  for (let run = 0; run < profile.runs; run++) {
    await step(ctx, backend, 'creates', `creates, ${profile.createClients} clients${runName(ctx, run)}`, async () => {
      const limit = raw ? await raw.inserts(profile.loadSeconds) : await runPgbench(ctx.postgres!.pgbench, 16, profile.loadSeconds);
      add('creates', 'limit', limit);
      if (backend === 'postgres' && ctx.koa.writes) {
        const bare = await bareLoad(ctx.koa, profile.createClients, profile.loadSeconds, createLoad(namespace, next));
        add('cpu-create', 'limit', bare.cpuMs);
      }
      const cpu = usage.cpuSeconds();
      const result = await measureThroughput(access, profile.createClients, profile.loadSeconds, createLoad(namespace, next));
      const after = usage.cpuSeconds();
      noteFailures('creates', run, result);
      add('creates', 'cairn', result.perSecond);
      add('updates', 'limit', result.perSecond);
      add('merge-patches', 'limit', result.perSecond);
      addCpu('cpu-create', cpuMsPerRequest(cpu, after, result.ok));
    });
  }
  for (let run = 0; run < profile.runs; run++) {
    await step(ctx, backend, 'get', `GET, ${profile.getConnections} connections${runName(ctx, run)}`, async () => {
      const koa = await bareLoad(ctx.koa, profile.getConnections, profile.loadSeconds, { method: 'GET', path: '/' });
      add('get', 'limit', koa.result.perSecond);
      add('cpu-get', 'limit', koa.cpuMs);
      const cpu = usage.cpuSeconds();
      const result = await measureThroughput(access, profile.getConnections, profile.loadSeconds, getLoad(namespace));
      const after = usage.cpuSeconds();
      noteFailures('get', run, result);
      add('get', 'cairn', result.perSecond);
      addCpu('cpu-get', cpuMsPerRequest(cpu, after, result.ok));
      if (raw) {
        add('get-vs-raw-pglite', 'limit', await raw.selects(profile.loadSeconds));
        add('get-vs-raw-pglite', 'cairn', result.perSecond);
      }
    });
  }
  for (let run = 0; run < profile.runs; run++) {
    await step(ctx, backend, 'updates', `updates${runName(ctx, run)}`, async () => {
      const result = await measureThroughput(access, profile.createClients, profile.loadSeconds, {
        method: 'PUT',
        path: pipelinePath(namespace, poolName(0)),
        contentType: 'application/json',
        next: () => {
          const n = next();
          const name = poolName(n % profile.updatePool);
          return { path: pipelinePath(namespace, name), body: pipelineBody(name, n) };
        },
      });
      noteFailures('updates', run, result);
      add('updates', 'cairn', result.perSecond);
    });
  }
  for (let run = 0; run < profile.runs; run++) {
    await step(ctx, backend, 'merge-patches', `merge patches${runName(ctx, run)}`, async () => {
      const result = await measureThroughput(access, profile.createClients, profile.loadSeconds, {
        method: 'PATCH',
        path: pipelinePath(namespace, poolName(0)),
        contentType: 'application/merge-patch+json',
        next: () => {
          const n = next();
          const body = JSON.stringify({ metadata: { annotations: { [revisionAnnotation]: String(n) } } });
          return { path: pipelinePath(namespace, poolName(n % profile.updatePool)), body };
        },
      });
      noteFailures('merge-patches', run, result);
      add('merge-patches', 'cairn', result.perSecond);
    });
  }
  for (let run = 0; run < profile.runs; run++) {
    await step(ctx, backend, 'create-latency', `create latency, 1 client${runName(ctx, run)}`, async () => {
      const latencies = await sequentialCreates(server, profile.latencySeconds, () => `l-${String(next()).padStart(7, '0')}`);
      add('create-latency', 'cairn', percentile(latencies, 99));
      add('create-latency', 'secondary', percentile(latencies, 50));
    });
  }
}

/** A load on the bare server, and its CPU per request answered 2xx in ms. */
async function bareLoad(koa: BareKoa, connections: number, seconds: number, load: LoadRequest): Promise<{ result: Throughput; cpuMs: number }> {
  const before = cpuSeconds(koa.pid);
  const result = await measureThroughput(koa.access, connections, seconds, load);
  if (result.ok === 0) throw new Error('the bare server answered no request with 2xx');
  return { result, cpuMs: ((cpuSeconds(koa.pid) - before) * 1000) / result.ok };
}

/** The creates row's load: each POST a new Pipeline, named from `next`. */
export const createLoad = (namespace: string, next: () => number): LoadRequest => ({
  method: 'POST',
  path: pipelinesPath(namespace),
  contentType: 'application/json',
  next: () => ({ body: pipelineBody(`c-${String(next()).padStart(7, '0')}`) }),
});

/** The GET row's load: {@link getName} over and over. */
export const getLoad = (namespace: string): LoadRequest => ({ method: 'GET', path: pipelinePath(namespace, getName) });

/** Creates one Pipeline after another on one connection for `seconds`; returns each create's latency in ms, ascending. */
async function sequentialCreates(server: CairnProcess, seconds: number, name: () => string): Promise<Float64Array> {
  const agent = keepAliveAgent(1);
  const latencies: number[] = [];
  try {
    const end = performance.now() + seconds * 1000;
    while (performance.now() < end) {
      const body = pipelineBody(name());
      const start = performance.now();
      const response = await request(server.access, 'POST', pipelinesPath(namespace), { body, agent });
      latencies.push(performance.now() - start);
      if (response.status !== 201) throw new Error(`create: HTTP ${response.status} ${response.text.slice(0, 200)}`);
    }
  } finally {
    agent.destroy();
  }
  return Float64Array.from(latencies).sort();
}
