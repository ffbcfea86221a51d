/**
 * Watch delivery latency: watchers open on one server, creates sent to a server (the
 * same one, or another replica) at a fixed rate whatever the answers' pace (open loop),
 * and for every watcher and every create the time from sending the create to the
 * watcher reading its ADDED event.
 */
import type { Agent } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { pipelineBody, pipelinesPath } from './pipeline-manifest.js';
import { keepAliveAgent, request, type ServerAccess } from './server-access.js';
import { percentile } from './stats.js';
import { openWatchers } from './watchers.js';

/** How many watchers, how many creates and how fast. */
export interface WatchScenario {
  readonly watchers: number;
  readonly writes: number;
  readonly perSecond: number;
}

/** What one run measured. */
export interface WatchRun {
  /** Every delivery's latency in ms, ascending. */
  readonly latenciesMs: Float64Array;
  readonly p50: number;
  readonly p99: number;
  /** Deliveries of acknowledged creates (watchers × creates) that had not arrived 30 s after the last create. */
  readonly missing: number;
  readonly failedWrites: number;
  /** CPU the bench itself (writer and watchers) used from the first create to the last delivery, in cores. */
  readonly clientCores: number;
}

/** Where to watch and write, and what to do while the watchers are idle. */
export interface WatchLatencyOptions {
  /** The server the creates are sent to. */
  readonly writer: ServerAccess;
  /** The server the watchers watch. */
  readonly watched: ServerAccess;
  /** A namespace no other run uses, so its watchers see only this run's creates. */
  readonly namespace: string;
  readonly scenario: WatchScenario;
  /** Called once every watcher is open and idle, before the first create (the idle-memory row). */
  readonly whenIdle?: () => Promise<void>;
}

const prefix = 'wl-';
const readyName = `${prefix}ready`;
/** How long after the last create the stragglers are waited for. */
const drainMs = 30_000;

/** Runs one scenario; resolves when every delivery arrived or the deadline passed. */
export async function measureWatchLatency(options: WatchLatencyOptions): Promise<WatchRun> {
  const { watchers: count, writes, perSecond } = options.scenario;
  const sentAt = new Float64Array(writes);
  const latencies = new Float64Array(count * writes);
  let received = 0;
  let ready = 0;
  let wake: () => void = () => undefined;
  const onAdded = (name: string, at: number): void => {
    if (name === readyName) ready++;
    else if (received < latencies.length) latencies[received++] = at - sentAt[Number(name.slice(prefix.length))];
    wake();
  };
  const until = (done: () => boolean, ms: number): Promise<boolean> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(done()), ms);
      wake = () => {
        if (!done()) return;
        clearTimeout(timer);
        resolve(true);
      };
      wake();
    });
  const path = pipelinesPath(options.namespace);
  const watchers = await openWatchers(options.watched, options.namespace, count, prefix, onAdded);
  const agent = keepAliveAgent(64);
  try {
    // The marker proves every watch is registered before the clock starts.
    await create(options.writer, path, readyName, agent);
    if (!(await until(() => ready === count, 60_000))) throw new Error(`only ${ready} of ${count} watchers saw the first event`);
    await sleep(500);
    await options.whenIdle?.();
    let failedWrites = 0;
    const cpu = process.cpuUsage();
    const start = performance.now();
    const sends: Promise<void>[] = [];
    for (let i = 0; i < writes; i++) {
      const due = start + (i * 1000) / perSecond;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      sentAt[i] = performance.now();
      sends.push(create(options.writer, path, `${prefix}${i}`, agent).catch(() => void failedWrites++));
    }
    await Promise.all(sends);
    const expected = count * (writes - failedWrites);
    await until(() => received >= expected, drainMs);
    const used = process.cpuUsage(cpu);
    const clientCores = (used.user + used.system) / 1000 / (performance.now() - start);
    const sorted = latencies.subarray(0, received).sort();
    if (sorted.length === 0) throw new Error('no event was delivered');
    return { latenciesMs: sorted, p50: percentile(sorted, 50), p99: percentile(sorted, 99), missing: expected - received, failedWrites, clientCores };
  } finally {
    watchers.close();
    agent.destroy();
  }
}

/** Creates one Pipeline; rejects unless 201. */
async function create(access: ServerAccess, path: string, name: string, agent: Agent): Promise<void> {
  const response = await request(access, 'POST', path, { body: pipelineBody(name), agent });
  if (response.status !== 201) throw new Error(`create ${name}: HTTP ${response.status} ${response.text.slice(0, 200)}`);
}
