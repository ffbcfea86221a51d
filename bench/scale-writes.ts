/**
 * The writes of issue 24 on a seeded database: closed-loop creates (their rate at each
 * size), and open-loop creates at a fixed rate into namespaces that watchers watch, one
 * namespace per watcher, with the delivery latency, the events a watcher should not have
 * had, and the server's RSS and CPU meanwhile.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CairnProcess } from './cairn-process.js';
import { measureThroughput } from './http-load.js';
import { pipelineBody, pipelinesPath } from './pipeline-manifest.js';
import { cpuSeconds } from './process-cpu.js';
import { mib } from './process-memory.js';
import { expectStatus, keepAliveAgent, request } from './server-access.js';
import { percentile } from './stats.js';
import { openNamespaceWatchers } from './watchers.js';

/** Closed-loop creates of ~900-byte Pipelines into `namespace` for `seconds`, after a fifth of that untimed: the rate, and how many were created. */
export async function measureCreates(
  server: CairnProcess,
  namespace: string,
  tag: string,
  clients: number,
  seconds: number,
): Promise<{ perSecond: number; created: number; failed: number }> {
  let next = 0;
  const creates = {
    method: 'POST',
    path: pipelinesPath(namespace),
    contentType: 'application/json',
    next: () => ({ body: pipelineBody(`${tag}-${next++}`) }),
  } as const;
  // Untimed first: a server just started runs its write path cold (unoptimized code, empty caches) for a while.
  await measureThroughput(server.access, clients, Math.max(1, seconds / 5), creates);
  const result = await measureThroughput(server.access, clients, seconds, creates);
  return { perSecond: result.perSecond, created: result.ok, failed: result.failed };
}

/** A watch load: who watches what, and where the creates go. */
export interface WatchLoad {
  /** Names of this load's objects start with `${tag}-`. */
  readonly tag: string;
  /** One watcher per entry, on that namespace. */
  readonly watched: readonly string[];
  /** The namespace create `i` goes to, and the watcher that must see it (undefined: a namespace no one watches). */
  readonly target: (i: number) => { readonly namespace: string; readonly watcher?: number };
  readonly perSecond: number;
  readonly seconds: number;
}

/** What a watch load measured. */
export interface WatchLoadResult {
  readonly watchers: number;
  readonly writes: number;
  readonly failedWrites: number;
  /** Deliveries to the watcher of the create's namespace. */
  readonly delivered: number;
  /** Deliveries owed (acknowledged creates into watched namespaces) that had not arrived 30 s after the last create. */
  readonly missing: number;
  /** Events a watcher read of a namespace it does not watch: must be 0. */
  readonly foreign: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number };
  /** Server RSS before the watchers opened, its highest while the creates ran (sampled each second), and after. */
  readonly rssMiB: { readonly before: number; readonly peak: number; readonly after: number };
  /** Server CPU while the creates ran, in cores. */
  readonly serverCores: number;
}

const drainMs = 30_000;

/** Opens the watchers from the current resourceVersion, sends the creates at a fixed rate whatever the answers' pace, and waits for the deliveries. */
export async function runWatchLoad(server: CairnProcess, load: WatchLoad, onProgress?: (line: string) => void): Promise<WatchLoadResult> {
  const writes = Math.round(load.perSecond * load.seconds);
  const prefix = `${load.tag}-`;
  const sentAt = new Float64Array(writes).fill(Number.NaN);
  const latencies: number[] = [];
  let foreign = 0;
  let wake = (): void => undefined;
  const onEvent = (watcher: number, name: string, at: number): void => {
    const i = Number(name.slice(prefix.length));
    if (!Number.isInteger(i) || i >= writes || load.target(i).watcher !== watcher) foreign++;
    else latencies.push(at - sentAt[i]);
    wake();
  };
  const rssBefore = mib(server.residentBytes());
  const list = JSON.parse(await expectStatus(server.access, 'GET', `/apis/cairn.dev/v1/pipelines?limit=1`)) as { metadata: { resourceVersion: string } };
  const watchers = await openNamespaceWatchers(server.access, load.watched, prefix, onEvent, list.metadata.resourceVersion);
  const agent = keepAliveAgent(64);
  let peak = mib(server.residentBytes());
  const sampler = setInterval(() => (peak = Math.max(peak, mib(server.residentBytes()))), 1000);
  try {
    await sleep(500);
    let failedWrites = 0;
    let owed = 0;
    const cpu = cpuSeconds(server.pid);
    const start = performance.now();
    const sends: Promise<void>[] = [];
    let reported = start;
    for (let i = 0; i < writes; i++) {
      const due = start + (i * 1000) / load.perSecond;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      if (onProgress && performance.now() - reported >= 60_000) {
        reported = performance.now();
        onProgress(`${i} of ${writes} creates sent, ${latencies.length} delivered, RSS ${mib(server.residentBytes()).toFixed(0)} MiB`);
      }
      const { namespace, watcher } = load.target(i);
      sentAt[i] = performance.now();
      sends.push(
        request(server.access, 'POST', pipelinesPath(namespace), { body: pipelineBody(`${prefix}${i}`), agent }).then(
          (r) => (r.status === 201 ? void (watcher !== undefined && owed++) : void failedWrites++),
          () => void failedWrites++,
        ),
      );
    }
    await Promise.all(sends);
    const cores = (cpuSeconds(server.pid) - cpu) / ((performance.now() - start) / 1000);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, drainMs);
      wake = () => {
        if (latencies.length < owed) return;
        clearTimeout(timer);
        resolve();
      };
      wake();
    });
    const sorted = latencies.sort((a, b) => a - b);
    return {
      watchers: load.watched.length,
      writes,
      failedWrites,
      delivered: sorted.length,
      missing: Math.max(0, owed - sorted.length),
      foreign,
      latencyMs: sorted.length ? { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1)! } : { p50: NaN, p99: NaN, max: NaN },
      rssMiB: { before: rssBefore, peak, after: mib(server.residentBytes()) },
      serverCores: cores,
    };
  } finally {
    clearInterval(sampler);
    watchers.close();
    agent.destroy();
  }
}
