/**
 * The current objects of one resource, in memory, as kube's cacher keeps its store:
 * loaded by one list the first time a read needs them, then kept from the same
 * stream of events the watchers read (the watch cache's appends: this process's
 * commits, and the poller's reads of the other replicas').
 *
 * The list and the stream are stitched without a gap or a double application: the
 * cache starts taking events (into a buffer) before the list's snapshot is taken, so
 * every event the list does not contain arrives after; the list is a snapshot at one
 * resourceVersion R (commits happen in resourceVersion order, so it holds exactly
 * the writes up to R), and of the buffer only the events after R are applied.
 *
 * It has a bound: it holds a resource's objects while there are at most `capacity` of
 * them. A load finds how many there are first (from the counts the database keeps) and
 * loads nothing when there are more; a live cache that grows past the bound drops its
 * objects. Either way it leaves the resource to the database and tries again, with
 * one count, no sooner than `retryMs` later. Memory is then `capacity` objects at
 * most, however many the resource has.
 */
import { matchesFields } from '../machinery/selectors/field-selector.js';
import { matchesLabels } from '../machinery/selectors/label-selector.js';
import type { StoredObject } from '../machinery/meta/object.js';
import type { EventLogEntry } from './event-log-entry.js';
import type { SelectionPredicate, StorageKey } from './interfaces.js';
import { compareCodePoints, orderedKey } from './key-order.js';
import type { FieldMap, StringMap } from './schema.js';

/**
 * One object as the cache holds it: its key, the labels and selectable fields that
 * selectors read, and the object, frozen and shared by every reader. An ADDED or
 * MODIFIED event is one as it is (its object is parsed at the first read).
 */
export interface CachedObject {
  readonly namespace: string;
  readonly name: string;
  readonly labels: StringMap;
  readonly fields: FieldMap;
  readonly object: StoredObject;
}

/** Every object of a resource at one resourceVersion, as a load reads them. */
export interface ObjectSnapshot {
  readonly resourceVersion: bigint;
  readonly objects: readonly CachedObject[];
}

/** One page of a list from the cache. */
export interface CachedPage {
  readonly items: readonly CachedObject[];
  /** The key the next page starts after, when more objects match than the limit let through. */
  readonly continueAfter?: StorageKey;
  /** How many matching objects follow the page, when counted and there are any. */
  readonly remainingItemCount?: number;
  /** How many objects the list looked at (`apiserver_cache_list_fetched_objects_total`). */
  readonly fetched: number;
}

/** What an ObjectCache is made of. */
export interface ObjectCacheOptions {
  /** Reads every object of the resource at one snapshot; undefined when there are more than `limit`. */
  readonly load: (limit: number) => Promise<ObjectSnapshot | undefined>;
  /** The watch cache's newest resourceVersion: every event up to it has been applied. */
  readonly newest: () => bigint;
  /** The most objects it holds: a resource with more is left to the database. */
  readonly capacity: number;
  /** How long after finding the resource too large it tries again; default 30 s. */
  readonly retryMs?: number;
}

const defaultRetryMs = 30_000;

/** The current objects of one resource. */
export class ObjectCache {
  readonly #o: ObjectCacheOptions;
  #state: 'empty' | 'loading' | 'live' | 'oversized' = 'empty';
  /** While oversized: when a read may try to load again (performance.now()). */
  #retryAt = 0;
  #loading: Promise<void> | undefined;
  /** Events taken while a load runs, applied after it. */
  #buffer: EventLogEntry[] = [];
  /** Bumped by a reset: a load that began before it reads again. */
  #generation = 0;
  /** The resourceVersion of the snapshot loaded: events up to it are in it already. */
  #loadedAt = 0n;
  /** No object has changed after this resourceVersion (the newest event applied, or the snapshot's). */
  #changedAt = 0n;
  readonly #byKey = new Map<string, CachedObject>();
  /** The keys of `#byKey` in order ({@link orderedKey}, compared by code point). */
  #keys: string[] = [];
  #loads = 0;

  constructor(options: ObjectCacheOptions) {
    this.#o = options;
  }

  /** Whether the objects are loaded and kept: reads can be served. */
  get live(): boolean {
    return this.#state === 'live';
  }

  /** The resourceVersion the objects are exactly at: every event up to it is applied, none after. */
  get resourceVersion(): bigint {
    const newest = this.#o.newest();
    return newest > this.#loadedAt ? newest : this.#loadedAt;
  }

  /**
   * Whether the objects are, now, exactly the resource's state at `resourceVersion`:
   * they are live, at it or newer, and none changed after it. Then a list at exactly
   * that resourceVersion (a continued one) can be served from memory.
   */
  holdsStateAt(resourceVersion: bigint): boolean {
    return this.live && this.#changedAt <= resourceVersion && resourceVersion <= this.resourceVersion;
  }

  /** How many objects it holds. */
  get size(): number {
    return this.#byKey.size;
  }

  /** How many loads completed (`apiserver_watch_cache_initializations_total`). */
  get loads(): number {
    return this.#loads;
  }

  /** The most objects it holds. */
  get capacity(): number {
    return this.#o.capacity;
  }

  /**
   * Resolves once the objects are live, loading them if no load runs, or once it knows
   * the resource has more objects than it holds (then `live` is false, and the reads
   * are the database's); rejects when the load fails.
   */
  ready(): Promise<void> {
    if (this.#state === 'live') return Promise.resolve();
    if (this.#state === 'oversized' && performance.now() < this.#retryAt) return Promise.resolve();
    this.#loading ??= this.#load().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  async #load(): Promise<void> {
    for (;;) {
      const generation = this.#generation;
      // Events from here on are kept: the snapshot, taken after, cannot miss one.
      this.#state = 'loading';
      this.#buffer = [];
      let snapshot: ObjectSnapshot | undefined;
      try {
        snapshot = await this.#o.load(this.#o.capacity);
      } catch (error) {
        if (generation === this.#generation) {
          this.#state = 'empty';
          this.#buffer = [];
        }
        throw error;
      }
      if (generation !== this.#generation) continue;
      if (snapshot === undefined) {
        this.#oversize();
        return;
      }
      this.#fill(snapshot);
      const buffered = this.#buffer;
      this.#buffer = [];
      this.#state = 'live';
      this.#loads++;
      for (const event of buffered) this.apply(event);
      return;
    }
  }

  /** Drops the objects of a resource with more than it may hold, until the retry time. */
  #oversize(): void {
    this.#byKey.clear();
    this.#keys = [];
    this.#buffer = [];
    this.#loadedAt = 0n;
    this.#changedAt = 0n;
    this.#state = 'oversized';
    this.#retryAt = performance.now() + (this.#o.retryMs ?? defaultRetryMs);
  }

  /** Replaces the objects with a snapshot's. */
  #fill(snapshot: ObjectSnapshot): void {
    this.#byKey.clear();
    const keys: string[] = [];
    for (const object of snapshot.objects) {
      const key = orderedKey(object.namespace, object.name);
      this.#byKey.set(key, object);
      keys.push(key);
    }
    // The database returns them in order where its collation orders by code point; sort otherwise.
    if (!keys.every((key, i) => i === 0 || compareCodePoints(keys[i - 1], key) < 0)) keys.sort(compareCodePoints);
    this.#keys = keys;
    this.#loadedAt = snapshot.resourceVersion;
    this.#changedAt = snapshot.resourceVersion;
  }

  /** Applies one of this resource's events, as the watch cache took them (in resourceVersion order). */
  apply(event: EventLogEntry): void {
    if (this.#state === 'empty' || this.#state === 'oversized') return;
    if (this.#state === 'loading') {
      this.#buffer.push(event);
      return;
    }
    if (event.rv <= this.#loadedAt) return;
    this.#changedAt = event.rv;
    const key = orderedKey(event.namespace, event.name);
    if (event.type === 'DELETED') {
      if (this.#byKey.delete(key)) this.#keys.splice(this.#lowerBound(key), 1);
      return;
    }
    if (!this.#byKey.has(key)) {
      if (this.#byKey.size >= this.#o.capacity) {
        this.#oversize();
        return;
      }
      this.#keys.splice(this.#lowerBound(key), 0, key);
    }
    this.#byKey.set(key, event);
  }

  /** Drops every object (the events they were kept from are lost); the next read loads them again. */
  reset(): void {
    this.#generation++;
    this.#byKey.clear();
    this.#keys = [];
    this.#buffer = [];
    this.#loadedAt = 0n;
    this.#changedAt = 0n;
    if (this.#state === 'live' || this.#state === 'oversized') this.#state = 'empty';
  }

  /** The object at `key`, or undefined. */
  get(key: StorageKey): CachedObject | undefined {
    return this.#byKey.get(orderedKey(key.namespace, key.name));
  }

  /**
   * The objects of `namespace` (all when undefined) matching `predicate`, in key
   * order, after the key `after`: at most `limit` of them, with where the next page
   * starts and, with `countRemaining`, how many follow.
   */
  list(
    namespace: string | undefined,
    predicate: SelectionPredicate,
    options: { after?: StorageKey; limit?: number; countRemaining?: boolean } = {},
  ): CachedPage {
    const { labelSelector, fieldSelector } = predicate;
    // The namespace is the key's, as the database compares it (selector-sql.ts), whatever the resource's fields say.
    const byKey = fieldSelector?.some((r) => r.field === 'metadata.namespace');
    const prefix = namespace === undefined ? undefined : orderedKey(namespace, '');
    const limit = options.limit ?? Infinity;
    const items: CachedObject[] = [];
    let fetched = 0;
    let remaining = 0;
    let more = false;
    let start = prefix === undefined ? 0 : this.#lowerBound(prefix);
    if (options.after) {
      const after = orderedKey(options.after.namespace, options.after.name);
      start = Math.max(start, this.#lowerBound(after) + (this.#byKey.has(after) ? 1 : 0));
    }
    for (let i = start; i < this.#keys.length; i++) {
      const key = this.#keys[i];
      if (prefix !== undefined && !key.startsWith(prefix)) break;
      const object = this.#byKey.get(key)!;
      fetched++;
      if (labelSelector?.length && !matchesLabels(labelSelector, object.labels)) continue;
      if (fieldSelector?.length && !matchesFields(fieldSelector, byKey ? { ...object.fields, 'metadata.namespace': object.namespace } : object.fields))
        continue;
      if (items.length < limit) {
        items.push(object);
        continue;
      }
      more = true;
      if (!options.countRemaining) break;
      remaining++;
    }
    if (!more) return { items, fetched };
    const last = items[items.length - 1];
    return {
      items,
      fetched,
      continueAfter: { namespace: last.namespace, name: last.name },
      ...(options.countRemaining ? { remainingItemCount: remaining } : {}),
    };
  }

  /** The index of the first key not less than `key`. */
  #lowerBound(key: string): number {
    let lo = 0;
    let hi = this.#keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareCodePoints(this.#keys[mid], key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
