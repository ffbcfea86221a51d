/**
 * `--workers N` on PostgreSQL: this process becomes a node:cluster primary that serves
 * nothing itself. It writes the PKI once, forks N workers that share the listening port
 * (each a replica as separate processes on one database are: its own writer loop, watches
 * across replicas through the database, the compaction and garbage-collector locks taken
 * by one), prints the start banner once all serve, starts a worker anew when one dies
 * (which listens only once its storage is ready, its siblings serving meanwhile),
 * gathers `/metrics` across workers, and on SIGTERM or SIGINT has every worker shut down
 * gracefully, exiting once all have.
 */
import cluster, { type Worker } from 'node:cluster';
import { mkdir } from 'node:fs/promises';
import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import type { ServerConfig } from './config.js';
import { servingPki } from './options/serving.js';
import { startBanner } from './start-banner.js';
import { joiningVariable, workerSlotVariable, type MetricsResponse, type ReadyMessage, type WorkerMessage } from './worker-messages.js';

/** How long a dead worker's replacement waits, so that one failing at start does not spin the primary. */
const restartDelayMs = 1000;

/** Runs the primary of `count` workers until they have all exited after a signal; resolves with the exit code. */
export async function runPrimary(config: ServerConfig, logger: Logger, count: number): Promise<number> {
  // Once, before any worker reads them: N workers would otherwise each generate a CA at first start.
  await mkdir(config.dataDir, { recursive: true });
  await servingPki(config);
  const aggregator = new AggregatorRegistry();
  // Ours rather than cluster.workers, which drops a worker only once its IPC channel has closed too.
  const live = new Set<Worker>();
  // Which slot each worker fills: its replacement takes the same one.
  const slots = new Map<Worker, number>();
  const ready = new Set<number>();
  let bannerShown = false;
  let stopping = false;
  let failed = false;

  const fork = (slot: number): Worker => {
    // At the first start every worker listens at once, as kube-apiserver does, answering 503 until its storage is ready;
    // one started while another serves (a replacement) leaves the port's connections to those that serve until it can.
    const joining = ready.size > 0 ? { [joiningVariable]: '1' } : {};
    const worker = cluster.fork({ [workerSlotVariable]: String(slot), ...joining });
    live.add(worker);
    slots.set(worker, slot);
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'cairn:ready') onReady(worker, message);
      if (message.type === 'cairn:metrics-request')
        aggregator.clusterMetrics().then(
          (text) => send(worker, { type: 'cairn:metrics', id: message.id, text }),
          (error: unknown) => send(worker, { type: 'cairn:metrics', id: message.id, error: (error as Error).message }),
        );
    });
    return worker;
  };
  const onReady = (worker: Worker, message: ReadyMessage): void => {
    ready.add(worker.id);
    logger.info({ worker: worker.process.pid }, 'worker ready');
    if (bannerShown || ready.size < count) return;
    bannerShown = true;
    process.stderr.write(startBanner(message.url, message.kubeconfigPath, message.storage, count));
  };

  const exited = new Promise<number>((resolve) => {
    cluster.on('exit', (worker, code, signal) => {
      live.delete(worker);
      ready.delete(worker.id);
      if (stopping) {
        if (code !== 0) failed = true;
        if (live.size === 0) resolve(failed ? 1 : 0);
        return;
      }
      const slot = slots.get(worker) ?? 0;
      slots.delete(worker);
      logger.warn({ worker: worker.process.pid, slot, code, signal }, 'worker exited; starting another');
      setTimeout(() => {
        if (!stopping) fork(slot);
      }, restartDelayMs).unref();
    });
  });

  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, workers: live.size }, 'shutting down the workers');
    if (live.size === 0) process.exit(0);
    // Each shuts down as one server does: readyz fails, the shutdown delay, the grace for requests in flight.
    for (const worker of live) worker.process.kill('SIGTERM');
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  logger.info({ workers: count }, 'starting workers');
  for (let slot = 0; slot < count; slot++) fork(slot);
  return exited;
}

/** Sends to a worker that may have gone meanwhile. */
function send(worker: Worker, message: MetricsResponse): void {
  if (worker.isConnected()) worker.send(message);
}
