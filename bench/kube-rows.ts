/**
 * The kube-apiserver column: the rows issue 28 compares, measured on kube-apiserver + etcd
 * serving Pipelines as a CRD (bench/kube-plane.ts) with the load generator, requests and
 * scenarios of Cairn's rows: creates and GET with the CPU per request, the three watch
 * scenarios, the memory after them, and a LIST of the LIST row's count, its objects
 * created through the API (etcd has no SQL to copy them with).
 */
import type { Agent } from 'node:https';
import { runName, step, type BenchContext } from './bench-context.js';
import { measureThroughput, type Throughput } from './http-load.js';
import type { KubePlane } from './kube-plane.js';
import { listAll } from './list-timing.js';
import { memoryRow } from './memory-row.js';
import { pipelineBody, pipelinesPath } from './pipeline-manifest.js';
import { expectStatus, keepAliveAgent, request } from './server-access.js';
import { cpuMsPerRequest } from './server-usage.js';
import { createLoad, getLoad, getName } from './throughput-rows.js';
import { watchScenarioRows } from './watch-rows.js';

const namespace = 'bench';
const listNamespace = 'bench-list';
/** Creates in flight while the LIST's objects are made: the creates row's clients. */
const seedConcurrency = 16;

/** The steps {@link kubeRows} reports, for the progress bar's total (its start included). */
export const kubeSteps = (runs: number): number => 2 + 6 * runs;

/** Measures every kube-apiserver figure on `kube`. */
export async function kubeRows(ctx: BenchContext, kube: KubePlane): Promise<void> {
  const { profile, collector } = ctx;
  const { access, usage } = kube;
  const add = collector.add.bind(collector, 'kube');
  const noteFailures = (id: string, run: number, result: Throughput): void => {
    if (result.failed > 0) collector.note('kube', id, `run ${run + 1}: ${result.failed} requests failed or were not 2xx`);
  };
  await kube.createNamespace(namespace);
  await expectStatus(access, 'POST', pipelinesPath(namespace), { body: pipelineBody(getName) });
  let seq = 0;
  const next = (): number => seq++;

  for (let run = 0; run < profile.runs; run++) {
    await step(ctx, 'kube', 'creates', `creates, ${profile.createClients} clients${runName(ctx, run)}`, async () => {
      const cpu = usage.cpuSeconds();
      const result = await measureThroughput(access, profile.createClients, profile.loadSeconds, createLoad(namespace, next));
      const ms = cpuMsPerRequest(cpu, usage.cpuSeconds(), result.ok);
      noteFailures('creates', run, result);
      add('creates', 'cairn', result.perSecond);
      add('cpu-create', 'cairn', ms.server);
      add('cpu-create-store', 'cairn', ms.serverAndStore);
    });
  }
  for (let run = 0; run < profile.runs; run++) {
    await step(ctx, 'kube', 'get', `GET, ${profile.getConnections} connections${runName(ctx, run)}`, async () => {
      const cpu = usage.cpuSeconds();
      const result = await measureThroughput(access, profile.getConnections, profile.loadSeconds, getLoad(namespace));
      const ms = cpuMsPerRequest(cpu, usage.cpuSeconds(), result.ok);
      noteFailures('get', run, result);
      add('get', 'cairn', result.perSecond);
      add('cpu-get', 'cairn', ms.server);
      add('cpu-get-store', 'cairn', ms.serverAndStore);
    });
  }
  for (const id of ['watch-burst', 'watch-steady', 'watch-many'] as const) await watchScenarioRows(ctx, 'kube', id, access, kube.createNamespace);
  memoryRow(ctx, 'kube', usage);

  let seeded = false;
  await step(ctx, 'kube', 'list', `creating ${profile.listObjects} Pipelines through the API for the LIST`, async () => {
    await kube.createNamespace(listNamespace);
    await createPipelines(kube, listNamespace, profile.listObjects);
    seeded = true;
  });
  // A LIST of fewer objects than Cairn's would be no figure of the row: none without them all.
  for (let run = 0; seeded && run < profile.runs; run++) {
    await step(ctx, 'kube', 'list', `LIST ${profile.listObjects}${runName(ctx, run)}`, async () => {
      add('list', 'cairn', (await listAll(access, listNamespace)).ms);
    });
  }
}

/** Creates `count` Pipelines in `namespace`, {@link seedConcurrency} at a time on keep-alive connections; throws on any failure. */
async function createPipelines(kube: KubePlane, namespace: string, count: number): Promise<void> {
  const agent: Agent = keepAliveAgent(seedConcurrency);
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: seedConcurrency }, async () => {
        for (let i = next++; i < count; i = next++) {
          const name = `p-${String(i).padStart(7, '0')}`;
          const answer = await request(kube.access, 'POST', pipelinesPath(namespace), { body: pipelineBody(name), agent });
          if (answer.status !== 201) throw new Error(`create ${name}: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
}
