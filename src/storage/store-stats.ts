/**
 * What an object store counts and holds, as plain numbers that `metrics.ts` reads when
 * scraped: the watch cache, and each resource's cached objects and the reads they
 * served. (How long reads waited for the cache, and the sizes of write batches, the
 * store records into the metrics it is given as they happen.)
 */

/** How a consistent read (one that must see every commit made before it) was served. */
export type ConsistentReadOutcome = 'cache' | 'fallback' | 'fallbackFailed';

/** The counters of one resource's reads; storage bumps them, `/metrics` reads them. */
export class ResourceReadStats {
  #cacheLists = 0;
  #cacheFetched = 0;
  #cacheReturned = 0;
  readonly #consistent: Record<ConsistentReadOutcome, number> = { cache: 0, fallback: 0, fallbackFailed: 0 };

  /** A list the object cache served, having looked at `fetched` objects and returned `returned`. */
  cacheList(fetched: number, returned: number): void {
    this.#cacheLists++;
    this.#cacheFetched += fetched;
    this.#cacheReturned += returned;
  }

  /** A consistent read served from the cache, or by the database when the cache could not catch up in time. */
  consistentRead(outcome: ConsistentReadOutcome): void {
    this.#consistent[outcome]++;
  }

  /** The counts so far. */
  snapshot(): ResourceReadCounts {
    return {
      cacheLists: this.#cacheLists,
      cacheFetched: this.#cacheFetched,
      cacheReturned: this.#cacheReturned,
      consistentReads: { ...this.#consistent },
    };
  }
}

/** One resource's read counters. */
export interface ResourceReadCounts {
  /** Lists served from the object cache (`apiserver_cache_list_total`). */
  readonly cacheLists: number;
  /** Objects those lists looked at (`apiserver_cache_list_fetched_objects_total`). */
  readonly cacheFetched: number;
  /** Objects those lists returned (`apiserver_cache_list_returned_objects_total`). */
  readonly cacheReturned: number;
  /** Consistent reads by how they were served (`apiserver_watch_cache_consistent_read_total`). */
  readonly consistentReads: Readonly<Record<ConsistentReadOutcome, number>>;
}

/** One resource's cached objects and reads. */
export interface ResourceStats extends ResourceReadCounts {
  /** Whether its objects are loaded and kept. */
  readonly live: boolean;
  /** How many objects the cache holds. */
  readonly objects: number;
  /** Loads of its objects (`apiserver_watch_cache_initializations_total`). */
  readonly loads: number;
}

/** What an object store holds and did. */
export interface StoreStats {
  /** The watch cache, one for every resource. */
  readonly watchCache: {
    /** The most events it keeps (`apiserver_watch_cache_capacity`). */
    readonly capacity: number;
    /** The events it keeps now. */
    readonly size: number;
    /** Every event up to this resourceVersion has been read (`apiserver_watch_cache_resource_version`). */
    readonly newest: bigint;
    /** Events taken, by resource (`apiserver_watch_cache_events_received_total`). */
    readonly received: ReadonlyMap<string, number>;
  };
  /** By resource (`pipelines.cairn.dev`), for each resource opened. */
  readonly resources: ReadonlyMap<string, ResourceStats>;
}
