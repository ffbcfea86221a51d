/**
 * The sample controller: a demonstration of the Kubernetes controller pattern (read
 * `.spec`, act, write `.status`) as a client of the Cairn API. It is not a container
 * runtime: no runner is started anywhere. A Pipeline's runners are simulated, their
 * readiness moving one step per tick, so `kubectl get pipelines -w`, `kubectl scale`
 * and `kubectl wait --for=condition=Ready` have something to show.
 *
 * Two informers (Pipelines, RunnerClasses) list and watch through the typed client
 * over HTTPS; their changes feed two work queues, each drained by one worker calling
 * its reconciler: Pipelines get their status, RunnerClasses their Pipeline counts.
 */
import { once } from 'node:events';
import type { CairnClient } from '../client/cairn-client.js';
import { Informer, keyOf } from '../machinery/kubeclient/informer.js';
import { listWatch } from '../client/list-watch.js';
import { PipelineController } from './pipeline-controller.js';
import { RunnerClassController, runnerClassesOf } from './runner-class-controller.js';
import { WorkQueue } from './work-queue.js';

/** Where the controller reports what goes wrong; a pino logger is one. */
export interface ControllerLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** Options of the controller. */
export interface ControllerOptions {
  /** The tick: the least time between two reconciles of one object, in ms (500 by default). */
  readonly tickMs?: number;
  /** How long the server keeps each watch stream open before the informers reopen it, in seconds (server's choice by default). */
  readonly watchTimeoutSeconds?: number;
  readonly logger?: ControllerLogger;
}

/** A running controller. */
export interface RunningController {
  /** Resolves once both informers hold their first list. */
  readonly synced: Promise<void>;
  /** Stops watching, lets the reconciles in progress finish, and resolves when everything has stopped. */
  stop(): Promise<void>;
}

const silent: ControllerLogger = { info: () => undefined, warn: () => undefined };

/**
 * Starts the controller on `client`.
 *
 * @example
 * const client = createCairnClient(await loadKubeconfig('.data/kubeconfig'));
 * const controller = startController(client, { logger });
 * // …
 * await controller.stop();
 * client.close();
 */
export function startController(client: CairnClient, options: ControllerOptions = {}): RunningController {
  const tickMs = options.tickMs ?? 500;
  const logger = options.logger ?? silent;
  const stopping = new AbortController();
  const informerOptions = { onError: (error: unknown) => logger.warn({ err: error }, 'list or watch failed; listing again') };
  const pipelines = new Informer(listWatch(client.api, '/apis/cairn.dev/v1/pipelines', { watchTimeoutSeconds: options.watchTimeoutSeconds }), informerOptions);
  const runnerClasses = new Informer(
    listWatch(client.api, '/apis/cairn.dev/v1/runnerclasses', { watchTimeoutSeconds: options.watchTimeoutSeconds }),
    informerOptions,
  );
  const pipelineQueue = new WorkQueue<string>({ intervalMs: tickMs });
  const runnerClassQueue = new WorkQueue<string>({ intervalMs: tickMs });

  pipelines.onChange((previous, current) => {
    if (current) pipelineQueue.add(keyOf(current));
    for (const name of runnerClassesOf(previous, current)) runnerClassQueue.add(name);
  });
  runnerClasses.onChange((_previous, current) => {
    if (current) runnerClassQueue.add(keyOf(current));
  });

  const pipelineController = new PipelineController(client, pipelines, (key) => pipelineQueue.add(key));
  const runnerClassController = new RunnerClassController(client, runnerClasses, pipelines);
  const informing = [pipelines.run(stopping.signal), runnerClasses.run(stopping.signal)];
  const synced = Promise.all([pipelines.synced, runnerClasses.synced]).then(() => logger.info({}, 'controller synced'));
  // Workers start once the caches are full (a RunnerClass counted from a partial Pipeline list would be wrong), or stop unstarted.
  const started = Promise.race([synced, once(stopping.signal, 'abort')]);
  const working = [
    work(pipelineQueue, (key) => pipelineController.reconcile(key), logger, started),
    work(runnerClassQueue, (key) => runnerClassController.reconcile(key), logger, started),
  ];

  return {
    synced,
    async stop() {
      stopping.abort();
      pipelineQueue.shutDown();
      runnerClassQueue.shutDown();
      await Promise.all([...informing, ...working]);
    },
  };
}

/** One worker: reconciles the keys `queue` hands out until it shuts down; a failed key is tried again at its next tick. */
async function work(queue: WorkQueue<string>, reconcile: (key: string) => Promise<void>, logger: ControllerLogger, started: Promise<unknown>): Promise<void> {
  await started;
  for (let key = await queue.get(); key !== undefined; key = await queue.get()) {
    try {
      await reconcile(key);
    } catch (error) {
      logger.warn({ err: error, key }, 'reconcile failed; retrying');
      queue.add(key);
    } finally {
      queue.done(key);
    }
  }
}
