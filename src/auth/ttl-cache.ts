/**
 * The expiring cache of kube's webhook authenticator and authorizer
 * (`k8s.io/apiserver/pkg/util/cache` LRU-expire cache): each entry lives for the TTL it
 * was stored with, and the cache holds at most a bounded number of entries, dropping
 * the oldest first.
 */

/** A map whose entries expire. */
export class TtlCache<V> {
  readonly #entries = new Map<string, { readonly value: V; readonly expires: number }>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  /** `maxEntries`: kube keeps 1024 SubjectAccessReview and 4096 token entries. */
  constructor(maxEntries: number, now: () => number = Date.now) {
    this.#maxEntries = maxEntries;
    this.#now = now;
  }

  /** The value under `key` unless it expired. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires > this.#now()) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  /** Stores `value` for `ttlMs` (not at all when it is 0). */
  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, { value, expires: this.#now() + ttlMs });
    // Maps iterate in insertion order: the first key is the oldest.
    while (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
  }
}
