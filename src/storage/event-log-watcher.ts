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
import type { WatchCache } from './watch-cache.js';

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

/** A StorageWatcher over the event log. */
export class EventLogWatcher implements StorageWatcher {
  readonly #o: EventLogWatcherOptions;
  readonly #abort = new AbortController();
  #cursor: bigint;
  #nextBookmark: number;

  constructor(options: EventLogWatcherOptions) {
    this.#o = options;
    this.#cursor = options.from;
    this.#nextBookmark = Date.now() + (options.bookmarkIntervalMs ?? 0);
  }

  stop(): void {
    if (this.#abort.signal.aborted) return;
    this.#abort.abort();
    this.#o.onStop(this);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StorageWatchEvent> {
    const signal = this.#abort.signal;
    const interval = this.#o.bookmarkIntervalMs;
    try {
      while (!signal.aborted) {
        const batch = await this.#nextBatch();
        for (const event of batch) {
          this.#cursor = event.rv;
          const delivered = this.#filter(event);
          if (delivered) yield delivered;
          if (signal.aborted) return;
        }
        // Checked after busy batches too: a watcher whose selector filters out a stream of changes still hears progress.
        if (interval !== undefined && Date.now() >= this.#nextBookmark) {
          this.#nextBookmark = Date.now() + interval;
          yield { type: 'BOOKMARK', resourceVersion: this.#cursor.toString() };
          continue;
        }
        if (batch.length === 0) {
          const { resource, namespace } = this.#o;
          const through = await this.#o.cache.changed(
            signal,
            { resource, namespace, cursor: this.#cursor },
            interval === undefined ? undefined : this.#nextBookmark,
          );
          // What was appended meanwhile before `through` is other resources' or namespaces': passed unread.
          if (through !== undefined && through > this.#cursor) this.#cursor = through;
        }
      }
    } finally {
      this.stop();
    }
  }

  async #nextBatch(): Promise<readonly EventLogEntry[]> {
    const cached = this.#o.cache.after(this.#cursor);
    if (cached) return cached;
    // Older than the cache: read the resource's events from the log (a page of its index on resource and
    // resourceVersion), and prove compaction did not cut into them: the resource's own mark, read in the
    // same snapshot, is at or before the cursor, or this is a 410 rather than a gap.
    // Everything up to `edge` had committed before the read below began.
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
