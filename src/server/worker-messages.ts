/**
 * What a `--workers` worker and its primary say to each other over the cluster's IPC
 * channel: the worker's readiness (the primary prints the one start banner once all are
 * ready) and `/metrics`, which a worker answers with the sum across workers that the
 * primary gathers with prom-client's AggregatorRegistry — a scrape reaches one worker
 * through the shared port, and should see the whole server.
 */
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { StorageDescription } from './start-banner.js';

/** A worker is ready: the API serves. */
export interface ReadyMessage {
  readonly type: 'cairn:ready';
  readonly url: string;
  readonly kubeconfigPath: string;
  readonly storage: StorageDescription;
}

/** A worker asks for every worker's metrics, summed. */
export interface MetricsRequest {
  readonly type: 'cairn:metrics-request';
  readonly id: number;
}

/** The primary's answer to a {@link MetricsRequest}: the exposition text, or why there is none. */
export interface MetricsResponse {
  readonly type: 'cairn:metrics';
  readonly id: number;
  readonly text?: string;
  readonly error?: string;
}

export type WorkerMessage = ReadyMessage | MetricsRequest;

/** Whether this process is a worker of a `--workers` primary. */
export const isWorker = (): boolean => cluster.isWorker;

/** The environment variable that gives a worker its slot, 0 to N-1 (a replacement takes the dead worker's). */
export const workerSlotVariable = 'CAIRN_WORKER_SLOT';

/**
 * The environment variable the primary sets for a worker it starts while another serves (a
 * replacement): that worker listens only once its storage is ready (server.ts).
 */
export const joiningVariable = 'CAIRN_WORKER_JOINS';

/** Whether this process is a worker started while siblings serve the port. */
export const joinsServingWorkers = (): boolean => cluster.isWorker && process.env[joiningVariable] === '1';

/** Whether this process is the first worker, or no worker at all: what must run once per server runs there. */
export const isFirstWorker = (): boolean => !cluster.isWorker || process.env[workerSlotVariable] === '0';

/** Tells the primary this worker serves. */
export function announceReady(message: Omit<ReadyMessage, 'type'>): void {
  process.send?.({ type: 'cairn:ready', ...message } satisfies ReadyMessage);
}

/**
 * In a worker: answers the primary's requests for `registry`'s metrics, and returns how
 * this worker gathers the metrics of all workers for `/metrics`.
 */
export function clusterMetrics(registry: Registry): () => Promise<string> {
  // Constructing one is what makes prom-client answer the primary's requests in a worker.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries(registry);
  let next = 0;
  const pending = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();
  process.on('message', (message: MetricsResponse) => {
    if (message.type !== 'cairn:metrics') return;
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.text !== undefined) waiting?.resolve(message.text);
    else waiting?.reject(new Error(`gathering the workers' metrics failed: ${message.error ?? 'no answer'}`));
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      process.send?.({ type: 'cairn:metrics-request', id } satisfies MetricsRequest);
    });
}
