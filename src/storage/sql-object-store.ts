/**
 * The ObjectStore on a Database (PGlite or PostgreSQL): the writer loop that commits
 * writes in batches, the watch cache fed by this process's commits and by the
 * event-log poller, the wake-ups of log followers, compaction, and one
 * SqlResourceStorage per resource.
 */
import { randomUUID } from 'node:crypto';
import { CoalescedNotify } from './coalesced-notify.js';
import type { Database } from './database.js';
import { compactEvents, readCurrentResourceVersion, readEvents } from './event-log.js';
import { LogWakeups } from './log-wakeups.js';
import type { Compaction, FieldsOf, ObjectStore, ResourceStorage, StorageVersioning } from './interfaces.js';
import { SqlResourceStorage } from './sql-resource-storage.js';
import { classifyDatabaseError } from './storage-error.js';
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
  /** A poll of the event log (and a wake of log followers) even without a wake-up, in case one was missed; default 5 s. */
  readonly safetyPollMs?: number;
  /** Errors of background work (polling, NOTIFY). */
  readonly onBackgroundError?: (error: unknown) => void;
}

const pollBatch = 1000;
const retryPollMs = 500;

/** An ObjectStore backed by SQL tables and an event log. */
export class SqlObjectStore implements ObjectStore {
  readonly #database: Database;
  readonly #cache: WatchCache;
  readonly #options: SqlObjectStoreOptions;
  readonly #storages = new Map<string, SqlResourceStorage>();
  readonly #eventsNotify: CoalescedNotify;
  readonly #logWakeups = new LogWakeups();
  readonly #logsNotify: CoalescedNotify;
  readonly #writes: WriteBatcher;
  /** What this store's NOTIFYs carry, so it can tell its own from the other replicas'. */
  readonly #id = randomUUID();
  #polling = false;
  #pollAgain = false;
  #closed = false;
  #safetyTimer: NodeJS.Timeout | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #unlisten: (() => Promise<void>)[] = [];

  private constructor(database: Database, cache: WatchCache, options: SqlObjectStoreOptions) {
    this.#database = database;
    this.#cache = cache;
    this.#options = options;
    const onError = (error: unknown): void => options.onBackgroundError?.(error);
    this.#eventsNotify = new CoalescedNotify(database, eventsChannel, onError, this.#id);
    this.#logsNotify = new CoalescedNotify(database, logsChannel, onError, this.#id);
    this.#writes = new WriteBatcher({ database, onCommit: (batch) => this.#afterCommit(batch) });
  }

  /** Opens the store on a migrated database and starts following the event log. */
  static async open(database: Database, options: SqlObjectStoreOptions = {}): Promise<SqlObjectStore> {
    const start = await database.run((db) => readCurrentResourceVersion(db));
    const store = new SqlObjectStore(database, new WatchCache(start, options.watchCacheCapacity), options);
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
      storage = new SqlResourceStorage({
        resource,
        fieldsOf,
        versioning,
        database: this.#database,
        cache: this.#cache,
        writes: this.#writes,
        logWakeups: this.#logWakeups,
        logNotify: this.#logsNotify,
      });
      this.#storages.set(resource, storage);
    }
    return storage;
  }

  async currentResourceVersion(): Promise<string> {
    try {
      return (await this.#database.run((db) => readCurrentResourceVersion(db))).toString();
    } catch (error) {
      throw classifyDatabaseError(error);
    }
  }

  async compact(retentionMs: number): Promise<Compaction> {
    const cutoff = new Date(Date.now() - retentionMs);
    try {
      const { compacted, ran } = await this.#database.transaction((trx) => compactEvents(trx, cutoff));
      return { compacted: compacted.toString(), ran };
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
    await Promise.all([this.#eventsNotify.close(), this.#logsNotify.close()]);
    await Promise.all(this.#unlisten.map((unlisten) => unlisten()));
    for (const storage of this.#storages.values()) storage.stopWatchers();
    this.#cache.close();
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
    // A coalesced wake-up, sent after the commit: the event log is the truth.
    this.#eventsNotify.wake();
  }

  /** Reads the log past the cache's newest event; coalesces overlapping calls. */
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
          let batch;
          do {
            batch = await this.#database.run((db) => readEvents(db, this.#cache.newest, pollBatch));
            this.#cache.append(batch);
          } while (batch.length === pollBatch && !this.#closed);
        } while (this.#pollAgain && !this.#closed);
      } catch (error) {
        this.#options.onBackgroundError?.(error);
        this.#retryTimer ??= setTimeout(() => {
          this.#retryTimer = undefined;
          this.#poll();
        }, retryPollMs);
      } finally {
        this.#polling = false;
      }
    })();
  }
}
