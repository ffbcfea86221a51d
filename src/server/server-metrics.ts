/**
 * The metrics of a running server: the API's (kube-apiserver's names, from the http
 * layer), the number of stored objects per resource, storage's (the watch cache and
 * the reads served from it, with kube's names), and Cairn's own about the work the
 * server does besides serving requests (compaction, group commit, the database pool,
 * how far the watch cache trails the event log).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ApiGroup } from '../apis/api-resource.js';
import { ApiMetrics } from '../http/filters/metrics.js';
import { cacheReadWaits } from '../storage/cache-read-waits.js';
import type { CountedHistogram } from '../storage/counted-histogram.js';
import type { Database } from '../storage/database.js';
import { countObjects } from '../storage/object-counts.js';
import { SqlObjectStore } from '../storage/sql-object-store.js';
import type { ResourceStats, StoreStats } from '../storage/store-stats.js';
import { writeBatchSizes } from '../storage/write-batch-sizes.js';

/** How long a scrape waits for the database's newest resourceVersion before reporting the last lag. */
const lagReadTimeoutMs = 1000;

/** A server's metrics, and what it records in them. */
export interface ServerMetrics {
  readonly api: ApiMetrics;
  /** One run of event-log compaction, and how it ended (skipped: another replica was compacting). */
  compactionRun(result: 'success' | 'skipped' | 'failure'): void;
}

/** The metrics of a server on `database` (undefined until storage is up: no objects are counted then). */
export function serverMetrics(groups: readonly ApiGroup[], database: () => Database | undefined): ServerMetrics {
  const api = new ApiMetrics(groups, async () => {
    const db = database();
    return db ? countObjects(db) : new Map();
  });
  const compactions = new Counter({
    name: 'cairn_compaction_runs_total',
    help: 'Runs of event-log compaction, by result.',
    labelNames: ['result'],
    registers: [api.registry],
  });
  storageMetrics(api.registry, database);
  return { api, compactionRun: (result) => compactions.inc({ result }) };
}

/** Counters read from storage at scrape time: their values are storage's, set whole. */
function setCounter<L extends string>(counter: Counter<L>, values: Iterable<readonly [Partial<Record<L, string>>, number]>): void {
  counter.reset();
  for (const [labels, value] of values) counter.inc(labels, value);
}

/** A prom-client histogram fed with every observation of a storage histogram from now on. */
function mirror(histogram: CountedHistogram, name: string, help: string, registry: Registry): void {
  const metric = new Histogram({ name, help, buckets: [...histogram.bounds], registers: [registry] });
  histogram.onObserve((value) => metric.observe(value));
}

/**
 * Storage's metrics, read when scraped. The watch cache is one for every resource,
 * so its capacity and resourceVersion carry no `resource` label; what it received,
 * what each resource's object cache holds and the reads it served do.
 */
function storageMetrics(registry: Registry, database: () => Database | undefined): void {
  const registers = [registry];
  const stats = (): StoreStats | undefined => {
    const db = database();
    return db && SqlObjectStore.of(db)?.stats();
  };
  const perResource = <T>(pick: (resource: ResourceStats) => T): (readonly [string, T])[] =>
    [...(stats()?.resources ?? new Map<string, ResourceStats>())].map(([resource, r]) => [resource, pick(r)] as const);

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
  mirror(cacheReadWaits, 'apiserver_watch_cache_read_wait_seconds', 'Histogram of time spent waiting for a watch cache to become fresh.', registry);
  mirror(writeBatchSizes, 'cairn_storage_write_batch_size', 'Writes committed together in one group commit (one transaction, one round trip).', registry);
  new Gauge({
    name: 'cairn_event_log_lag',
    help: 'The database’s newest resourceVersion minus the newest the watch cache holds every event up to, read at scrape time.',
    registers,
    async collect() {
      const db = database();
      const store = db && SqlObjectStore.of(db);
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
