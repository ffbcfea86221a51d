/**
 * The two calls a reflector makes of a collection, whoever serves it and however it is
 * reached: the typed client's paths (`client/list-watch.ts`), the main API server's
 * ConfigMaps and webhook configurations (`rest-client.ts`), the garbage collector's
 * metadata, or a script in a test.
 */

/** A change to a watched object. ERROR events are handled inside the watch. */
export interface WatchEvent<T> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: T;
}

/**
 * No change, only the resourceVersion the watch has reached (kube sends them to a watch
 * asked with `allowWatchBookmarks`): a reflector that resumes from it after the server
 * ends the watch need not go back further than the last change it saw.
 */
export interface Bookmark {
  readonly type: 'BOOKMARK';
  readonly object: { readonly metadata?: { readonly resourceVersion?: string } };
}

/** The list and watch calls of one collection. */
export interface ListWatch<T> {
  /** The collection now, and the resourceVersion to watch from. */
  list(signal: AbortSignal): Promise<{ readonly items: readonly T[]; readonly resourceVersion: string }>;
  /**
   * The changes after `resourceVersion` (and, if it surfaces them, its bookmarks), until
   * `signal` aborts or the server ends the watch (the reflector then watches again from
   * the last resourceVersion it saw); a ResourceExpiredError when the server no longer
   * has `resourceVersion`.
   */
  watch(resourceVersion: string, signal: AbortSignal): AsyncIterable<WatchEvent<T> | Bookmark>;
}
