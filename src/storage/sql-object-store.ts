/**
 * The ObjectStore on a Database (PGlite or PostgreSQL): the writer loop that commits
 * writes in batches, the watch cache fed by this process's commits and by the
 * event-log poller, the current objects of each resource kept from the same events
 * (where the object cache is on, up to its bound), the wake-ups of log followers,
 * compaction, and one SqlResourceStorage per resource, decorated by a {@link Cacher}
 * where the object cache is on.
 */
import { randomUUID } from 'node:crypto';
import { CoalescedNotify } from './coalesced-notify.js';
import type { Database } from './database.js';
import { compactEvents, readCompactedResourceVersion, readCurrentResourceVersion, readLogTail } from './event-log.js';
import { expireLogLines } from './log-lines.js';
import { LogWakeups } from './log-wakeups.js';
import type { Compaction, FieldsOf, ObjectStore, ResourceStorage, StorageVersioning } from './interfaces.js';
import { ordersByCodePoint } from './key-order.js';
import { Cacher } from './cacher.js';
import { ObjectCache } from './object-cache.js';
import { loadObjects } from './object-rows.js';
import { SqlResourceStorage } from './sql-resource-storage.js';
import { classifyDatabaseError, StorageError } from './storage-error.js';
import { noStorageMetrics, type StorageRecorder } from './metrics.js';
import { ResourceReadStats, type StoreStats } from './store-stats.js';
import { VersionDecoder } from './version-decoder.js';
import { WatchCache } from './watch-cache.js';
import { WriteBatcher, type CommittedBatch } from './write-batcher.js';

/** The NOTIFY channel replicas wake each other on. */
export const eventsChannel = 'cairn_events';
/** The NOTIFY channel replicas wake each other's log followers on. */
export const logsChannel = 'cairn_logs';

/** Options of the store. */
export interface SqlObjectStoreOptions {
  /** Events kept in memory for watchers; default 10,000. */
  readonly watchCacheCapacity?: number;
  /** How long an event stays in the watch cache at most, in ms; no limit by default. */
  readonly watchCacheMaxAgeMs?: number;
  /** A poll of the event log (and a wake of log followers) even without a wake-up, in case one was missed; default 5 s. */
  readonly safetyPollMs?: number;
  /** Errors of background work (polling, NOTIFY). */
  readonly onBackgroundError?: (error: unknown) => void;
  /**
   * How long a read that must see every commit made before it (a consistent read,
   * or one not older than a resourceVersion the cache has not reached) waits for the
   * watch cache to catch up before the database answers it instead; default 3 s, as
   * kube's cacher waits.
   */
  readonly cacheWaitMs?: number;
  /**
   * Whether this store's writes are the only ones the database takes (embedded PGlite:
   * one process, one store). Every commit then reaches the watch cache before its
   * writer hears back, so a consistent read needs no read of the log's tail: the cache
   * is current unless a poll is under way (after a batch whose outcome is unknown).
   */
  readonly exclusiveWriter?: boolean;
  /**
   * The most objects of one resource the object cache holds in memory: a resource with
   * more is read from the database, by index, as with no cache at all. 0 turns the
   * cache off. Default {@link defaultObjectCacheSize}.
   */
  readonly objectCacheSize?: number;
  /** How long after finding a resource over the bound the object cache counts it again; default 30 s. */
  readonly objectCacheRetryMs?: number;
  /** The most events one compaction transaction deletes (and log lines, for the age limit); default 1,000. */
  readonly compactionBatchSize?: number;
  /** The most bytes one object's log keeps, its oldest lines removed by the append that exceeds it; 0 or undefined: no cap. */
  readonly logMaxBytes?: number;
  /** Where the store records its group commits and its reads' waits for the cache; nowhere by default. */
  readonly metrics?: StorageRecorder;
}

/**
 * The object cache's default bound, per resource: about 50 MiB of objects (some 5 KiB
 * each in the heap). It keeps what is small in memory (RunnerClasses, which admission
 * reads at every Pipeline write; everything, on a small installation) and leaves a
 * resource with more to the database, whose indexed reads meet the same targets.
 */
export const defaultObjectCacheSize = 10_000;

const pollBatch = 1000;
const retryPollMs = 500;

/** A read waiting for the watch cache to hold every commit made before it asked. */
interface SyncWaiter {
  /** How many reads of the log had been issued when it asked: a later one tells it where the database is. */
  readonly after: number;
  readonly started: number;
  readonly deadlineMs: number;
  /** The database's newest resourceVersion, read after it asked: what the cache must reach. */
  target?: bigint;
  timer?: NodeJS.Timeout;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** An ObjectStore backed by SQL tables and an event log. */
export class SqlObjectStore implements ObjectStore {
  readonly #database: Database;
  readonly #cache: WatchCache;
  readonly #options: SqlObjectStoreOptions;
  readonly #metrics: StorageRecorder;
  readonly #storages = new Map<string, ResourceStorage>();
  readonly #sqlStorages = new Set<SqlResourceStorage>();
  readonly #logWakeups = new LogWakeups();
  readonly #logsNotify: CoalescedNotify;
  readonly #writes: WriteBatcher;
  /** The current objects of each resource, kept from the watch cache's appends. */
  readonly #objects = new Map<string, ObjectCache>();
  /** Whether the database orders keys as the object caches do: then they may hand out continue tokens. */
  readonly #codePointOrder: boolean;
  /** What this store's NOTIFYs carry, so it can tell its own from the other replicas'. */
  readonly #id = randomUUID();
  #polling = false;
  #pollAgain = false;
  /** Reads of the log's tail issued so far. */
  #issued = 0;
  /** The newest resourceVersion the log is known to be compacted through (by this store, or read with the log's tail). */
  #compacted: bigint;
  readonly #syncs = new Set<SyncWaiter>();
  readonly #readStats = new Map<string, ResourceReadStats>();
  #closed = false;
  #safetyTimer: NodeJS.Timeout | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #unlisten: (() => Promise<void>)[] = [];

  private constructor(database: Database, cache: WatchCache, compacted: bigint, codePointOrder: boolean, options: SqlObjectStoreOptions) {
    this.#database = database;
    this.#cache = cache;
    this.#compacted = compacted;
    this.#codePointOrder = codePointOrder;
    this.#options = options;
    this.#metrics = options.metrics ?? noStorageMetrics;
    const onError = (error: unknown): void => options.onBackgroundError?.(error);
    this.#logsNotify = new CoalescedNotify(database, logsChannel, onError, this.#id);
    this.#writes = new WriteBatcher({
      database,
      metrics: this.#metrics,
      onCommit: (batch) => this.#afterCommit(batch),
      // A backend with one process has nobody to wake.
      ...(database.backend === 'postgres' && { notify: { channel: eventsChannel, payload: this.#id } }),
    });
    cache.onAppend((events) => {
      for (const event of events) this.#objects.get(event.resource)?.apply(event);
      this.#settleSyncs();
    });
  }

  /** Opens the store on a migrated database and starts following the event log. */
  static async open(database: Database, options: SqlObjectStoreOptions = {}): Promise<SqlObjectStore> {
    const { start, compacted } = await database.transaction(
      async (trx) => ({ start: await readCurrentResourceVersion(trx), compacted: await readCompactedResourceVersion(trx) }),
      { snapshot: true },
    );
    const codePointOrder = await ordersByCodePoint(database);
    const store = new SqlObjectStore(
      database,
      new WatchCache(start, { capacity: options.watchCacheCapacity, maxAgeMs: options.watchCacheMaxAgeMs }),
      compacted,
      codePointOrder,
      options,
    );
    // This process's own writes reach its cache at commit: only the other replicas' wake-ups mean anything.
    store.#unlisten.push(await database.listen(eventsChannel, (from) => from !== store.#id && store.#poll()));
    store.#unlisten.push(await database.listen(logsChannel, (from) => from !== store.#id && store.#logWakeups.wakeAll()));
    store.#safetyTimer = setInterval(() => {
      store.#poll();
      store.#logWakeups.wakeAll();
    }, options.safetyPollMs ?? 5000);
    store.#safetyTimer.unref();
    return store;
  }

  forResource(resource: string, fieldsOf: FieldsOf, versioning?: StorageVersioning): ResourceStorage {
    let storage = this.#storages.get(resource);
    if (!storage) {
      const sqlStorage = new SqlResourceStorage({
        resource,
        fieldsOf,
        versioning,
        database: this.#database,
        cache: this.#cache,
        writes: this.#writes,
        logWakeups: this.#logWakeups,
        logNotify: this.#logsNotify,
        logMaxBytes: this.#options.logMaxBytes,
      });
      this.#sqlStorages.add(sqlStorage);
      storage = sqlStorage;
      const capacity = this.#options.objectCacheSize ?? defaultObjectCacheSize;
      if (capacity > 0) {
        const objects = new ObjectCache({
          load: (limit) => loadObjects(this.#database, resource, limit),
          newest: () => this.#cache.newest,
          capacity,
          retryMs: this.#options.objectCacheRetryMs,
        });
        const stats = new ResourceReadStats();
        this.#objects.set(resource, objects);
        this.#readStats.set(resource, stats);
        const decoder = new VersionDecoder(versioning);
        storage = new Cacher({
          resource,
          storage: sqlStorage,
          objects,
          catchUp: () => this.#catchUp(),
          decode: (object) => decoder.decodeShared(object),
          pagesFromCache: this.#codePointOrder,
          compacted: () => this.#compacted,
          stats,
        });
      }
      this.#storages.set(resource, storage);
    }
    return storage;
  }

  /** What the store holds and did, as plain numbers for `/metrics`. */
  stats(): StoreStats {
    const resources = new Map(
      [...this.#objects].map(([resource, objects]) => [
        resource,
        { live: objects.live, objects: objects.size, loads: objects.loads, ...this.#readStats.get(resource)!.snapshot() },
      ]),
    );
    return {
      watchCache: { capacity: this.#cache.capacity, size: this.#cache.size, newest: this.#cache.newest, received: this.#cache.received() },
      resources,
    };
  }

  /** The newest resourceVersion the watch cache holds every event up to. */
  get cachedResourceVersion(): bigint {
    return this.#cache.newest;
  }

  async currentResourceVersion(): Promise<string> {
    try {
      return (await this.#database.run((db) => readCurrentResourceVersion(db))).toString();
    } catch (error) {
      throw classifyDatabaseError(error);
    }
  }

  async compact(retentionMs: number, longerRetentionMs: ReadonlyMap<string, number> = new Map()): Promise<Compaction> {
    const now = Date.now();
    const cutoff = new Date(now - retentionMs);
    const longerRetention = new Map([...longerRetentionMs].map(([resource, ms]) => [resource, new Date(now - Math.max(ms, retentionMs))]));
    try {
      const { compacted, ran, removed } = await compactEvents(this.#database, cutoff, {
        longerRetention,
        batchSize: this.#options.compactionBatchSize,
        onBatch: (through, gone) => this.#metrics.compactionBatch(through, gone),
      });
      if (compacted > this.#compacted) this.#compacted = compacted;
      return { compacted: compacted.toString(), ran, removed };
    } catch (error) {
      throw classifyDatabaseError(error);
    }
  }

  /**
   * Removes the log lines older than `maxAgeMs`, oldest first, a batch at a time (the
   * age limit; the compaction pass runs it); returns how many went. Followers that had
   * not read them are told at their next read.
   */
  async expireLogLines(maxAgeMs: number): Promise<number> {
    try {
      return await expireLogLines(this.#database, new Date(Date.now() - maxAgeMs), this.#options.compactionBatchSize);
    } catch (error) {
      throw classifyDatabaseError(error);
    }
  }

  /** Finishes the writes queued, stops polling and ends every watch; log follows end with the watches of their objects. */
  async close(): Promise<void> {
    await this.#writes.close();
    this.#closed = true;
    clearInterval(this.#safetyTimer);
    clearTimeout(this.#retryTimer);
    await this.#logsNotify.close();
    await Promise.all(this.#unlisten.map((unlisten) => unlisten()));
    for (const storage of this.#sqlStorages) storage.stopWatchers();
    this.#cache.close();
    this.#failSyncs(new StorageError('Unavailable', 'the object store is closed'));
  }

  /**
   * A batch of local writes committed: hand its events to the cache now, and wake the
   * other replicas. The batch held the counter's lock to commit, so every resourceVersion
   * up to `after` had committed before it: when the cache holds exactly those, the
   * batch's events follow without a gap and no query is needed. Otherwise the cache is
   * behind (another replica's commits it has not read yet: poll) or past the batch (a
   * poll already read it). After a batch whose outcome is unknown, the log tells.
   */
  #afterCommit(batch: CommittedBatch | undefined): void {
    if (batch === undefined) {
      this.#poll();
      return;
    }
    const newest = this.#cache.newest;
    if (newest === batch.after) this.#cache.append(batch.events, batch.through);
    else if (newest < batch.after) this.#poll();
  }

  /**
   * Resolves once the watch cache holds every event committed before the call, as
   * kube's consistent reads from cache wait: the database's newest resourceVersion,
   * read after the call (by the next read of the log's tail, which every read waiting
   * meanwhile shares), then the cache catching up to it. Rejects when that read fails,
   * or when the cache has not caught up within `cacheWaitMs` (the caller then reads
   * the database).
   */
  #catchUp(): Promise<void> {
    if (this.#closed) return Promise.reject(new StorageError('Unavailable', 'the object store is closed'));
    if (this.#options.exclusiveWriter && !this.#polling && this.#retryTimer === undefined) {
      this.#metrics.cacheReadWait(0);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      this.#syncs.add({ after: this.#issued, started: performance.now(), deadlineMs: this.#options.cacheWaitMs ?? 3000, resolve, reject });
      this.#poll();
    });
  }

  /** A read of the log issued as the `seq`th found the database at `current`: the target of the reads that asked before it. */
  #targetSyncs(seq: number, current: bigint): void {
    for (const waiter of this.#syncs) if (waiter.target === undefined && waiter.after < seq) waiter.target = current;
    this.#settleSyncs();
  }

  /** Lets go the waiting reads the cache has caught up for; the others wait, until their deadline. */
  #settleSyncs(): void {
    if (this.#syncs.size === 0) return;
    const newest = this.#cache.newest;
    for (const waiter of this.#syncs) {
      if (waiter.target === undefined) continue;
      if (waiter.target <= newest) {
        this.#endSync(waiter);
        waiter.resolve();
      } else {
        waiter.timer ??= setTimeout(
          () => {
            this.#endSync(waiter);
            waiter.reject(new StorageError('Unavailable', `the watch cache did not reach resourceVersion ${String(waiter.target)} in time`));
          },
          Math.max(0, waiter.started + waiter.deadlineMs - performance.now()),
        );
      }
    }
  }

  #endSync(waiter: SyncWaiter): void {
    clearTimeout(waiter.timer);
    this.#syncs.delete(waiter);
    this.#metrics.cacheReadWait((performance.now() - waiter.started) / 1000);
  }

  /** Fails the waiting reads (the log could not be read, or the store closed). */
  #failSyncs(error: unknown): void {
    for (const waiter of [...this.#syncs]) {
      this.#endSync(waiter);
      waiter.reject(error);
    }
  }

  /**
   * Reads the log past the cache's newest event; coalesces overlapping calls. A read
   * that finds fewer events than it asked for holds every one up to the database's
   * newest resourceVersion, so the cache's newest becomes that: the resourceVersions
   * no event took are behind it too. A read that finds events compacted past the
   * cache's newest starts the cache again: what followed from the lost events (the
   * current objects) is dropped, and watchers behind hear that they are too old.
   */
  #poll(): void {
    if (this.#closed) return;
    if (this.#polling) {
      this.#pollAgain = true;
      return;
    }
    this.#polling = true;
    void (async () => {
      try {
        do {
          this.#pollAgain = false;
          let tail;
          do {
            const seq = ++this.#issued;
            tail = await readLogTail(this.#database, this.#cache.newest, pollBatch);
            if (tail.compacted > this.#compacted) this.#compacted = tail.compacted;
            // Local commits appended meanwhile follow the cache's newest without a gap: only the log's compaction can cut one.
            if (tail.compacted > this.#cache.newest) this.#restartCache(tail.compacted);
            this.#cache.append(tail.events, tail.events.length < pollBatch ? tail.current : undefined);
            this.#targetSyncs(seq, tail.current);
          } while (tail.events.length === pollBatch && !this.#closed);
        } while (this.#pollAgain && !this.#closed);
      } catch (error) {
        this.#options.onBackgroundError?.(error);
        this.#failSyncs(classifyDatabaseError(error));
        this.#retryTimer ??= setTimeout(() => {
          this.#retryTimer = undefined;
          this.#poll();
        }, retryPollMs);
      } finally {
        this.#polling = false;
      }
    })();
  }

  /** Starts the watch cache again after `rv`, and drops every resource's objects: the events in between are gone. */
  #restartCache(rv: bigint): void {
    this.#options.onBackgroundError?.(
      new Error(`the event log was compacted through ${String(rv)} before this replica read past ${String(this.#cache.newest)}`),
    );
    this.#cache.restart(rv);
    for (const objects of this.#objects.values()) objects.reset();
  }
}
