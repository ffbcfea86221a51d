/**
 * The two calls an informer makes of a collection, whoever serves it and however it is
 * reached: the typed client's paths (`client/list-watch.ts`), the main API server's
 * ConfigMaps and webhook configurations (`rest-client.ts`), or a script in a test.
 */

/** A change to a watched object. BOOKMARK and ERROR events are handled inside the watch. */
export interface WatchEvent<T> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: T;
}

/** The list and watch calls of one collection. */
export interface ListWatch<T> {
  /** The collection now, and the resourceVersion to watch from. */
  list(signal: AbortSignal): Promise<{ readonly items: readonly T[]; readonly resourceVersion: string }>;
  /**
   * The changes after `resourceVersion`, until `signal` aborts or the server ends the
   * watch (the informer then lists again); a ResourceExpiredError when the server no
   * longer has `resourceVersion`.
   */
  watch(resourceVersion: string, signal: AbortSignal): AsyncIterable<WatchEvent<T>>;
}
