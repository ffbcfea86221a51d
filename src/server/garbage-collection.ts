/**
 * The garbage collector in a server process: on which replica (the one holding the collector's lock
 * on PostgreSQL, a session lock or a lease row; an embedded PGlite has one process only), the client it uses
 * (the admin kubeconfig over HTTPS, as the sample controller), and its metrics under
 * the names kube's collector uses where kube has one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { createCairnClient } from '../client/cairn-client.js';
import { loadKubeconfig } from '../machinery/kubeclient/kubeconfig.js';
import { startGarbageCollector, type RunningGarbageCollector } from '../controller/garbage-collector/garbage-collector.js';
import type { SessionLock } from '../storage/session-lock.js';

/** How often a replica without the lock tries to take it (kube's leader-election retry period). */
const lockRetryMs = 2000;

/** The collector's part of a server. */
export interface GarbageCollection {
  /** Stops the collector if this replica runs it, and stops trying to. */
  stop(): Promise<void>;
}

/** What the collector needs of the server. */
export interface GarbageCollectionOptions {
  readonly kubeconfigPath: string;
  /** Takes the collector's lock on the PostgreSQL all replicas share (undefined: another holds it); none for an embedded PGlite. */
  readonly takeLock?: () => Promise<SessionLock | undefined>;
  readonly registry: Registry;
  readonly logger: Logger;
}

/**
 * Registers the collector's metrics on `registry`, read from `current()`, the
 * collector this replica runs now if any. kube names its queues' depths
 * `workqueue_depth{name="garbage_collector_attempt_to_delete|…orphan"}`; the catch-up
 * passes, the deletions and orphanings and who collects are Cairn's.
 */
function collectorMetrics(registry: Registry, current: () => RunningGarbageCollector | undefined) {
  new Gauge({
    name: 'workqueue_depth',
    help: "Current depth of the garbage collector's work queues.",
    labelNames: ['name'],
    registers: [registry],
    collect() {
      const depths = current()?.queueDepths();
      this.set({ name: 'garbage_collector_attempt_to_delete' }, depths?.attemptToDelete ?? 0);
      this.set({ name: 'garbage_collector_attempt_to_orphan' }, depths?.attemptToOrphan ?? 0);
    },
  });
  new Gauge({
    name: 'cairn_garbage_collector_catch_ups',
    help: 'Catch-up passes (every object with owners checked, a page at a time) the garbage collector has finished.',
    registers: [registry],
    collect() {
      this.set(current()?.catchUps() ?? 0);
    },
  });
  new Gauge({
    name: 'cairn_garbage_collector_catching_up',
    help: 'Whether the garbage collector is in a catch-up pass now (1) or not (0).',
    registers: [registry],
    collect() {
      this.set(current()?.catchingUp() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'cairn_garbage_collector_leader',
    help: 'Whether this replica runs the garbage collector (1) or another one does (0).',
    registers: [registry],
    collect() {
      this.set(current() ? 1 : 0);
    },
  });
  const deletions = new Counter({
    name: 'cairn_garbage_collector_deletions_total',
    help: 'Dependents the garbage collector deleted because their owners were gone or going, by resource.',
    labelNames: ['resource'],
    registers: [registry],
  });
  const orphanings = new Counter({
    name: 'cairn_garbage_collector_orphanings_total',
    help: 'Dependents whose ownerReference the garbage collector removed for an orphaning deletion, by resource.',
    labelNames: ['resource'],
    registers: [registry],
  });
  return { deleted: (resource: string) => deletions.inc({ resource }), orphaned: (resource: string) => orphanings.inc({ resource }) };
}

/**
 * Runs the collector on this replica whenever it holds the lock, until `stop`. The
 * collector starts once the API is ready (call this then).
 */
export function startGarbageCollection(options: GarbageCollectionOptions): GarbageCollection {
  const { logger, takeLock } = options;
  const stopping = new AbortController();
  let collector: RunningGarbageCollector | undefined;
  const counters = collectorMetrics(options.registry, () => collector);

  /** The lock, once this replica holds it; none is needed for PGlite (its data directory is locked to this process). */
  async function lock(): Promise<SessionLock | undefined> {
    const never = { lost: new Promise<void>(() => undefined), release: () => Promise.resolve() };
    while (!stopping.signal.aborted) {
      if (takeLock === undefined) return never;
      try {
        const held = await takeLock();
        if (held) return held;
      } catch (error) {
        logger.warn({ err: error }, 'garbage collector: taking its lock failed; retrying');
      }
      await sleep(lockRetryMs, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
    return undefined;
  }

  const running = (async () => {
    const client = createCairnClient(await loadKubeconfig(options.kubeconfigPath));
    try {
      for (let held = await lock(); held; held = await lock()) {
        logger.info('garbage collector started on this replica');
        collector = startGarbageCollector(client, { logger, counters });
        await Promise.race([held.lost, new Promise((resolve) => stopping.signal.addEventListener('abort', resolve, { once: true }))]);
        if (!stopping.signal.aborted) logger.warn('garbage collector lost its lock with its database connection; stopping until it takes it again');
        await collector.stop();
        collector = undefined;
        await held.release();
      }
    } finally {
      client.close();
    }
  })();
  running.catch((error: unknown) => logger.error({ err: error }, 'garbage collector failed'));

  return {
    async stop() {
      stopping.abort();
      await running.catch(() => undefined);
    },
  };
}
