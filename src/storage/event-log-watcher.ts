/**
 * One watch: a cursor over the event log, fed from the watch cache when the cache
 * reaches back far enough and from the database otherwise, filtered by namespace and
 * selectors with kube's watch-cache semantics (an object that stops matching is
 * DELETED for this watcher, in the state it matched in; one that starts matching is ADDED).
 */
import { deepFreeze, type StoredObject } from '../machinery/meta/object.js';
import { matchesFields } from '../machinery/selectors/field-selector.js';
import { matchesLabels } from '../machinery/selectors/label-selector.js';
import type { Database } from './database.js';
import { readEvents, readResourceCompacted } from './event-log.js';
import type { EventLogEntry } from './event-log-entry.js';
import type { SelectionPredicate, StorageObjectEvent, StorageWatchEvent, StorageWatcher } from './interfaces.js';
import type { FieldMap, StringMap } from './schema.js';
import { classifyDatabaseError, tooOld } from './storage-error.js';
import type { CacheFollower, WatchCache } from './watch-cache.js';

/** What an EventLogWatcher follows. */
export interface EventLogWatcherOptions {
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly predicate: SelectionPredicate;
  /** Events after this resourceVersion are delivered. */
  readonly from: bigint;
  /** The object of a delivered event as receivers get it (in the storage version); frozen, as the event's. */
  readonly decode: (object: StoredObject) => StoredObject;
  /** Milliseconds between BOOKMARK events; none when undefined. */
  readonly bookmarkIntervalMs?: number;
  readonly database: Database;
  readonly cache: WatchCache;
  readonly onStop: (watcher: EventLogWatcher) => void;
}

const databasePage = 500;

/**
 * A StorageWatcher over the event log. It is its own iterator, written out rather than
 * an async generator: a delivery at hand is handed over without a generator's
 * suspensions, and a watcher that caught up waits on its {@link CacheFollower}, made
 * once. At a thousand watchers woken per event, that per-delivery work is the fan-out.
 */
export class EventLogWatcher implements StorageWatcher, AsyncIterator<StorageWatchEvent> {
  readonly #o: EventLogWatcherOptions;
  readonly #abort = new AbortController();
  readonly #follower: CacheFollower;
  #cursor: bigint;
  #nextBookmark: number;
  /** The events read and not yet passed, from `#index` on. */
  #batch: readonly EventLogEntry[] = [];
  #index = 0;
  /** Whether the last read found nothing: the next one waits for the cache first. */
  #caughtUp = false;

  constructor(options: EventLogWatcherOptions) {
    this.#o = options;
    this.#cursor = options.from;
    this.#nextBookmark = Date.now() + (options.bookmarkIntervalMs ?? 0);
    this.#follower = options.cache.follow(this.#abort.signal, options.resource, options.namespace);
  }

  stop(): void {
    if (this.#abort.signal.aborted) return;
    this.#abort.abort();
    this.#o.onStop(this);
  }

  [Symbol.asyncIterator](): AsyncIterator<StorageWatchEvent> {
    return this;
  }

  /** Events read and not yet passed (some may be for other watchers' selectors). */
  pending(): boolean {
    return this.#index < this.#batch.length;
  }

  /** The next event this watcher delivers; done once it is stopped. A failed read stops it and rejects. */
  async next(): Promise<IteratorResult<StorageWatchEvent>> {
    const signal = this.#abort.signal;
    const interval = this.#o.bookmarkIntervalMs;
    try {
      while (!signal.aborted) {
        if (this.#index < this.#batch.length) {
          const event = this.#batch[this.#index++];
          this.#cursor = event.rv;
          const delivered = this.#filter(event);
          if (delivered) return { value: delivered, done: false };
          continue;
        }
        // Checked after busy batches too: a watcher whose selector filters out a stream of changes still hears progress.
        if (interval !== undefined && Date.now() >= this.#nextBookmark) {
          this.#nextBookmark = Date.now() + interval;
          return { value: { type: 'BOOKMARK', resourceVersion: this.#cursor.toString() }, done: false };
        }
        if (this.#caughtUp) {
          const through = await this.#follower.wait(this.#cursor, interval === undefined ? undefined : this.#nextBookmark);
          // What was appended meanwhile before `through` is other resources' or namespaces': passed unread.
          if (through !== undefined && through > this.#cursor) this.#cursor = through;
          if (signal.aborted) break;
        }
        this.#batch = this.#o.cache.after(this.#cursor) ?? (await this.#readLog());
        this.#index = 0;
        this.#caughtUp = this.#batch.length === 0;
      }
    } catch (error) {
      this.stop();
      throw error;
    }
    this.stop();
    return { value: undefined, done: true };
  }

  /** The consumer is done with it (a `for await` left early): the watch stops. */
  return(): Promise<IteratorResult<StorageWatchEvent>> {
    this.stop();
    return Promise.resolve({ value: undefined, done: true });
  }

  /** The events after the cursor when it is older than the cache: read from the log. */
  async #readLog(): Promise<readonly EventLogEntry[]> {
    // A page of the resource's index on resource and resourceVersion, and proof compaction did not cut
    // into it: the resource's own mark, read in the same snapshot, is at or before the cursor, or this is
    // a 410 rather than a gap. Everything up to `edge` had committed before the read below began.
    const edge = this.#o.cache.newest;
    const { events, compacted } = await this.#o.database
      .transaction(
        async (trx) => ({
          events: await readEvents(trx, this.#cursor, databasePage, this.#o.resource),
          compacted: await readResourceCompacted(trx, this.#o.resource),
        }),
        { snapshot: true },
      )
      .catch((error: unknown) => {
        throw classifyDatabaseError(error);
      });
    if (this.#cursor < compacted) throw tooOld(this.#cursor.toString(), compacted.toString());
    if (events.length === 0) {
      // Nothing of this resource up to the cache's edge: continue from there.
      if (edge > this.#cursor) this.#cursor = edge;
    }
    return events;
  }

  #matches(labels: StringMap | null, fields: FieldMap | null): boolean {
    if (labels === null || fields === null) return false;
    const { labelSelector, fieldSelector } = this.#o.predicate;
    return (!labelSelector || matchesLabels(labelSelector, labels)) && (!fieldSelector || matchesFields(fieldSelector, fields));
  }

  #filter(event: EventLogEntry): StorageObjectEvent | undefined {
    if (event.resource !== this.#o.resource) return undefined;
    if (this.#o.namespace !== undefined && event.namespace !== this.#o.namespace) return undefined;
    const type = this.#typeFor(event);
    if (type === undefined) return undefined;
    const resourceVersion = event.rv.toString();
    const left = type === 'DELETED' && event.type === 'MODIFIED' && event.prevObject !== null;
    return { type, object: this.#o.decode(left ? leftObject(event.prevObject, resourceVersion) : event.object), resourceVersion };
  }

  /** The event's type as this watcher sees it; undefined when it does not concern it. */
  #typeFor(event: EventLogEntry): StorageObjectEvent['type'] | undefined {
    if (event.type !== 'MODIFIED') return this.#matches(event.labels, event.fields) ? event.type : undefined;
    const now = this.#matches(event.labels, event.fields);
    const before = this.#matches(event.prevLabels, event.prevFields);
    if (now && before) return 'MODIFIED';
    if (now) return 'ADDED';
    if (before) return 'DELETED';
    return undefined;
  }
}

/**
 * What a watch an object left is sent, as kube's cacher sends it: the state it was
 * selected in, at the resourceVersion of the change that took it out. Frozen, as every
 * object a watcher is handed.
 */
function leftObject(previous: StoredObject, resourceVersion: string): StoredObject {
  return deepFreeze({ ...previous, metadata: { ...previous.metadata, resourceVersion } });
}
