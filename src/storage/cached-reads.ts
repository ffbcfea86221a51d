/**
 * Which reads a resource's object cache serves and which the database does, as
 * kube-apiserver's cacher delegator decides (k8s.io/apiserver storage/cacher
 * `delegator.go`, with consistent reads from cache), and the reads from the cache:
 *
 * - A **consistent read** (resourceVersion unset: it must see every write
 *   acknowledged before it began) waits for the watch cache to catch up with the
 *   database's newest resourceVersion, read after the request arrived (one read of the
 *   log's tail shared by every request waiting meanwhile), then reads the cache; when
 *   the cache does not catch up in time, the database answers instead.
 * - **resourceVersion=0** (`notOlderThan: '0'` for a list) reads the cache as it is.
 *   A list ignores its limit then, as kube's cacher does.
 * - **Not older than N** reads the cache once it reached N; `TooLarge` when the
 *   database has not.
 * - An **Exact** get is the database's: one keyed read of the state at N.
 * - **Exact** and **continued** lists are read at exactly their resourceVersion: from
 *   the cache when no object of the resource changed since (its objects are then that
 *   state, exactly), from the database otherwise. A page the cache served with a limit
 *   carries its resourceVersion, so the pages are one snapshot wherever each is read;
 *   the cache pages only where the database orders keys as it does (key-order.ts).
 * - Until a resource's objects are loaded, a GET goes to the database (the first
 *   starts the load, as kube serves from storage while its cache initializes); a list
 *   waits for the load, which costs about what the list would.
 * - A resource with more objects than the cache holds is the database's: every read,
 *   with its limit (a `resourceVersion=0` list too: the database pages it).
 */
import type { StoredObject } from '../machinery/meta/object.js';
import type { GetOptions, ListRequest, ListResult, StorageKey } from './interfaces.js';
import type { ObjectCache } from './object-cache.js';
import { tooLarge } from './storage-error.js';
import type { ResourceReadStats } from './store-stats.js';

/** What CachedReads is made of. */
export interface CachedReadsOptions {
  readonly objects: ObjectCache;
  /** Resolves once the watch cache holds every commit made before the call; rejects when it does not in time. */
  readonly catchUp: () => Promise<void>;
  /** An object of the cache as readers get it (in the storage version), frozen. */
  readonly decode: (object: StoredObject) => StoredObject;
  /** Whether the cache may hand out continue tokens (the database orders keys as it does). */
  readonly pagesFromCache: boolean;
  /**
   * The newest resourceVersion the event log is known to be compacted through: exact
   * lists before it are the database's, which answers them from the resource's own
   * retention (a resource whose history is kept longer has an older mark) or with a 410.
   */
  readonly compacted: () => bigint;
  readonly stats: ResourceReadStats;
}

const ignore = (): void => {};

/** The reads of one resource, served from its object cache or handed to the database. */
export class CachedReads {
  readonly #o: CachedReadsOptions;

  constructor(options: CachedReadsOptions) {
    this.#o = options;
  }

  /** The object at `key` (undefined when there is none), from the cache, or from `fromDatabase`. */
  async get(key: StorageKey, options: GetOptions, fromDatabase: () => Promise<StoredObject | undefined>): Promise<StoredObject | undefined> {
    const resourceVersion = options.resourceVersion;
    // The state at exactly N: one keyed read of the database, which knows the history's bounds.
    if (options.resourceVersionMatch === 'Exact' && resourceVersion !== undefined) return fromDatabase();
    const objects = this.#o.objects;
    const anyState = resourceVersion !== undefined && BigInt(resourceVersion) === 0n;
    if (!objects.live) {
      const loading = objects.ready();
      if (resourceVersion === undefined || anyState) {
        loading.catch(ignore);
        return fromDatabase();
      }
      if (
        !(await loading.then(
          () => true,
          () => false,
        ))
      )
        return fromDatabase();
    }
    if (resourceVersion === undefined) {
      if (!(await this.#caughtUp())) return this.#consistentFallback(fromDatabase);
    } else if (!anyState && !(await this.#reached(BigInt(resourceVersion)))) {
      return fromDatabase();
    }
    if (!objects.live) return fromDatabase();
    if (resourceVersion === undefined) this.#o.stats.consistentRead('cache');
    const cached = objects.get(key);
    return cached && this.#o.decode(cached.object);
  }

  /** One page of a list, from the cache (each object made an item by `item`), or from `fromDatabase`. */
  async list<Item>(
    namespace: string | undefined,
    request: ListRequest,
    fromDatabase: () => Promise<ListResult<Item>>,
    item: (object: StoredObject) => Item,
  ): Promise<ListResult<Item>> {
    if (request.resourceVersion !== undefined) return this.#listExactly(namespace, request, BigInt(request.resourceVersion), fromDatabase, item);
    if (request.after !== undefined) return fromDatabase();
    const objects = this.#o.objects;
    const anyState = request.notOlderThan !== undefined && BigInt(request.notOlderThan) === 0n;
    const limit = anyState ? undefined : request.limit;
    if (limit !== undefined && !this.#o.pagesFromCache) return fromDatabase();
    try {
      await objects.ready();
    } catch {
      return fromDatabase();
    }
    if (!objects.live) return fromDatabase();
    if (request.notOlderThan === undefined) {
      if (!(await this.#caughtUp())) return this.#consistentFallback(fromDatabase);
    } else if (!anyState && !(await this.#reached(BigInt(request.notOlderThan)))) {
      return fromDatabase();
    }
    if (!objects.live) return fromDatabase();
    if (request.notOlderThan === undefined) this.#o.stats.consistentRead('cache');
    return this.#page(namespace, { ...request, limit }, objects.resourceVersion, item);
  }

  /**
   * A list at exactly `at` (Exact, or a continued list): from the cache when its
   * objects are that state now (nothing of the resource changed since), else the
   * database's.
   */
  #listExactly<Item>(
    namespace: string | undefined,
    request: ListRequest,
    at: bigint,
    fromDatabase: () => Promise<ListResult<Item>>,
    item: (object: StoredObject) => Item,
  ): Promise<ListResult<Item>> {
    const paged = request.after !== undefined || request.limit !== undefined;
    if ((paged && !this.#o.pagesFromCache) || at < this.#o.compacted() || !this.#o.objects.holdsStateAt(at)) return fromDatabase();
    return Promise.resolve(this.#page(namespace, request, at, item));
  }

  /** One page read from the cache's objects, which are the resource's state at `resourceVersion`. */
  #page<Item>(namespace: string | undefined, request: ListRequest, resourceVersion: bigint, item: (object: StoredObject) => Item): ListResult<Item> {
    // Counted where the database counts too: a first page without selectors.
    const { labelSelector, fieldSelector } = request.predicate;
    const countRemaining = request.countRemaining && !request.after && !labelSelector?.length && !fieldSelector?.length;
    const page = this.#o.objects.list(namespace, request.predicate, { after: request.after, limit: request.limit, countRemaining });
    this.#o.stats.cacheList(page.fetched, page.items.length);
    return {
      items: page.items.map((cached) => item(this.#o.decode(cached.object))),
      resourceVersion: resourceVersion.toString(),
      ...(page.continueAfter ? { continueAfter: page.continueAfter } : {}),
      ...(page.remainingItemCount !== undefined ? { remainingItemCount: page.remainingItemCount } : {}),
    };
  }

  /** Whether the watch cache caught up with the database in time. */
  async #caughtUp(): Promise<boolean> {
    try {
      await this.#o.catchUp();
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Whether the cache is at `wanted` or newer, having caught up with the database if
   * it was not; false when it could not catch up (the database answers). Throws
   * `TooLarge` when the database itself has not reached `wanted`.
   */
  async #reached(wanted: bigint): Promise<boolean> {
    const objects = this.#o.objects;
    if (objects.resourceVersion >= wanted) return true;
    if (!(await this.#caughtUp())) return false;
    if (objects.resourceVersion < wanted) throw tooLarge(wanted.toString(), objects.resourceVersion.toString());
    return true;
  }

  /** A consistent read the database answers, the cache having not caught up in time. */
  async #consistentFallback<T>(fromDatabase: () => Promise<T>): Promise<T> {
    try {
      const result = await fromDatabase();
      this.#o.stats.consistentRead('fallback');
      return result;
    } catch (error) {
      this.#o.stats.consistentRead('fallbackFailed');
      throw error;
    }
  }
}
