/**
 * Storage's metrics, in one place, under the names kube gives its watch cache and
 * storage where kube has one and Cairn's own otherwise (group commit, compaction, the
 * object cache, the database pool, how far the watch cache trails the event log). The
 * server makes them once, on its registry, and passes them to the store it opens, which
 * records what happens as it works (group commit sizes, waits for a fresh cache); what
 * the store and its database hold is read when scraped, from the store the server says it opened.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Database } from './database.js';
import { countObjects } from './object-counts.js';
import type { ResourceStats, StoreStats } from './store-stats.js';

/** What storage records as it works. */
export interface StorageRecorder {
  /** Writes committed together in one group commit. */
  writeBatch(size: number): void;
  /** Seconds a read waited for the watch cache to become fresh (0 when it was). */
  cacheReadWait(seconds: number): void;
  /** A batch of compaction committed: the log is compacted through `compacted`, and `removed` events went. */
  compactionBatch(compacted: bigint, removed: number): void;
}

/** Records nothing: a store opened without metrics (tools, tests). */
export const noStorageMetrics: StorageRecorder = Object.freeze({
  writeBatch: () => undefined,
  cacheReadWait: () => undefined,
  compactionBatch: () => undefined,
});

/** What is read of an open store when scraped. */
export interface ObservedStore {
  stats(): StoreStats;
  /** Every event up to this resourceVersion is in the watch cache. */
  readonly cachedResourceVersion: bigint;
  /** The database's newest resourceVersion. */
  currentResourceVersion(): Promise<string>;
}

/** How long a scrape waits for the database's newest resourceVersion before reporting the last lag. */
const lagReadTimeoutMs = 1000;

/** Counters read from storage at scrape time: their values are storage's, set whole. */
function setCounter<L extends string>(counter: Counter<L>, values: Iterable<readonly [Partial<Record<L, string>>, number]>): void {
  counter.reset();
  for (const [labels, value] of values) counter.inc(labels, value);
}

/**
 * The storage metrics of one server. The watch cache is one for every resource, so its
 * capacity and resourceVersion carry no `resource` label; what it received, what each
 * resource's object cache holds and the reads it served do.
 */
export class StorageMetrics implements StorageRecorder {
  #observed: { readonly store: ObservedStore; readonly database: Database } | undefined;
  readonly #writeBatches: Histogram;
  readonly #cacheReadWaits: Histogram;
  readonly #compactions: Counter<'result'>;
  readonly #compactionSeconds: Histogram;
  readonly #compactedEvents: Counter;
  readonly #compactedResourceVersion: Gauge;

  constructor(registry: Registry) {
    const registers = [registry];
    const database = (): Database | undefined => this.#observed?.database;
    const stats = (): StoreStats | undefined => this.#observed?.store.stats();
    const perResource = <T>(pick: (resource: ResourceStats) => T): (readonly [string, T])[] =>
      [...(stats()?.resources ?? new Map<string, ResourceStats>())].map(([resource, r]) => [resource, pick(r)] as const);
    const observed = () => this.#observed;

    new Gauge({
      name: 'apiserver_storage_objects',
      help: 'Number of stored objects at the time of last check split by kind.',
      // Every --workers worker counts the same database: their sum would count each object once per worker.
      aggregator: 'max',
      labelNames: ['resource'],
      registers,
      async collect() {
        const db = database();
        // While the database cannot answer, the last counts stand rather than failing the whole scrape.
        const counts = await (db ? countObjects(db) : Promise.resolve(new Map<string, number>())).catch(() => undefined);
        if (!counts) return;
        this.reset();
        for (const [resource, count] of counts) this.set({ resource }, count);
      },
    });
    this.#compactions = new Counter({
      name: 'cairn_compaction_runs_total',
      help: 'Runs of event-log compaction, by result.',
      labelNames: ['result'],
      registers,
    });
    // Progress, batch by batch: a long compaction shows its work while it runs.
    this.#compactionSeconds = new Histogram({
      name: 'cairn_compaction_duration_seconds',
      help: 'Histogram of the time a run of event-log compaction took, every batch of it.',
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
      registers,
    });
    this.#compactedEvents = new Counter({
      name: 'cairn_compaction_events_removed_total',
      help: 'Events removed from the event log by compaction.',
      registers,
    });
    this.#compactedResourceVersion = new Gauge({
      name: 'cairn_compaction_resource_version',
      help: 'The resourceVersion the event log is compacted through, as of the last batch this server committed.',
      // Across --workers workers: the furthest any has compacted.
      aggregator: 'max',
      registers,
    });
    new Gauge({
      name: 'apiserver_watch_cache_capacity',
      help: 'Total capacity of the watch cache (one for every resource: no resource label).',
      registers,
      collect() {
        const s = stats();
        if (s) this.set(s.watchCache.capacity);
      },
    });
    new Gauge({
      name: 'apiserver_watch_cache_resource_version',
      help: 'Current resource version of the watch cache (one for every resource: no resource label).',
      // Across --workers workers: the newest any watch cache holds.
      aggregator: 'max',
      registers,
      collect() {
        const s = stats();
        if (s) this.set(Number(s.watchCache.newest));
      },
    });
    new Counter({
      name: 'apiserver_watch_cache_events_received_total',
      help: 'Counter of events received in the watch cache, by resource.',
      labelNames: ['resource'],
      registers,
      collect() {
        setCounter(
          this,
          [...(stats()?.watchCache.received ?? [])].map(([resource, n]) => [{ resource }, n] as const),
        );
      },
    });
    new Counter({
      name: 'apiserver_watch_cache_initializations_total',
      help: 'Counter of loads of a resource’s objects into the cache.',
      labelNames: ['resource'],
      registers,
      collect() {
        setCounter(
          this,
          perResource((r) => r.loads).map(([resource, n]) => [{ resource }, n] as const),
        );
      },
    });
    new Counter({
      name: 'apiserver_watch_cache_consistent_read_total',
      help: 'Counter of consistent reads from cache, by resource, success and whether the database answered instead.',
      labelNames: ['resource', 'success', 'fallback'],
      registers,
      collect() {
        setCounter(
          this,
          perResource((r) => r.consistentReads).flatMap(([resource, n]) => [
            [{ resource, success: 'true', fallback: 'false' }, n.cache] as const,
            [{ resource, success: 'true', fallback: 'true' }, n.fallback] as const,
            [{ resource, success: 'false', fallback: 'true' }, n.fallbackFailed] as const,
          ]),
        );
      },
    });
    const cacheLists: [string, string, (r: ResourceStats) => number][] = [
      ['apiserver_cache_list_total', 'Number of LIST requests served from the watch cache.', (r) => r.cacheLists],
      ['apiserver_cache_list_fetched_objects_total', 'Number of objects read from the watch cache while serving LIST requests.', (r) => r.cacheFetched],
      ['apiserver_cache_list_returned_objects_total', 'Number of objects returned for LIST requests from the watch cache.', (r) => r.cacheReturned],
    ];
    for (const [name, help, pick] of cacheLists) {
      new Counter({
        name,
        help,
        labelNames: ['resource'],
        registers,
        collect() {
          setCounter(
            this,
            perResource(pick).map(([resource, n]) => [{ resource }, n] as const),
          );
        },
      });
    }
    new Gauge({
      name: 'cairn_object_cache_objects',
      help: 'Objects held in memory by the object cache, by resource (absent until a read loads them).',
      labelNames: ['resource'],
      registers,
      collect() {
        this.reset();
        for (const [resource, r] of perResource((r) => r)) if (r.live) this.set({ resource }, r.objects);
      },
    });
    this.#cacheReadWaits = new Histogram({
      name: 'apiserver_watch_cache_read_wait_seconds',
      help: 'Histogram of time spent waiting for a watch cache to become fresh.',
      buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3],
      registers,
    });
    this.#writeBatches = new Histogram({
      name: 'cairn_storage_write_batch_size',
      help: 'Writes committed together in one group commit (one transaction, one round trip).',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
      registers,
    });
    new Gauge({
      name: 'cairn_event_log_lag',
      help: 'The database’s newest resourceVersion minus the newest the watch cache holds every event up to, read at scrape time.',
      // Across --workers workers: the one furthest behind.
      aggregator: 'max',
      registers,
      async collect() {
        const store = observed()?.store;
        // While the database cannot answer, or answers slowly (a stalled database must not hang /metrics), the
        // last value stands rather than failing or holding the whole scrape.
        let timer: NodeJS.Timeout | undefined;
        const giveUp = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), lagReadTimeoutMs)));
        const current = await Promise.race([store?.currentResourceVersion().catch(() => undefined), giveUp]);
        clearTimeout(timer);
        if (store && current !== undefined) this.set(Math.max(0, Number(BigInt(current) - store.cachedResourceVersion)));
      },
    });
    new Gauge({
      name: 'cairn_database_pool_connections',
      help: 'Database connections in use and idle, and the work waiting for one (PGlite: its one connection and its queue).',
      labelNames: ['state'],
      registers,
      collect() {
        const connections = database()?.connections();
        if (!connections) return;
        this.set({ state: 'in_use' }, connections.inUse);
        this.set({ state: 'idle' }, connections.idle);
        this.set({ state: 'waiting' }, connections.waiting);
      },
    });
  }

  writeBatch(size: number): void {
    this.#writeBatches.observe(size);
  }

  cacheReadWait(seconds: number): void {
    this.#cacheReadWaits.observe(seconds);
  }

  compactionBatch(compacted: bigint, removed: number): void {
    this.#compactedEvents.inc(removed);
    this.#compactedResourceVersion.set(Number(compacted));
  }

  /** One run of event-log compaction, how it ended (skipped: another replica was compacting) and how long it took. */
  compactionRun(result: 'success' | 'skipped' | 'failure', seconds: number): void {
    this.#compactions.inc({ result });
    if (result !== 'skipped') this.#compactionSeconds.observe(seconds);
  }

  /** Reads `store` on `database` when scraped from now on; nothing is read of storage when undefined (storage is not up). */
  observe(observed: { readonly store: ObservedStore; readonly database: Database } | undefined): void {
    this.#observed = observed;
  }
}
