/**
 * An informer, like client-go's: a Reflector (the list-watch-relist loop) whose sink
 * keeps the objects in a cache and tells the informer's handlers about every change;
 * after a relist, the difference from what was cached. With a resync period, every
 * cached object is handed to the handlers again at that period, as client-go's resync
 * does, so a controller retries what it left undone. The typed client, the
 * controllers, the cluster's authentication ConfigMap and the webhook configurations
 * all run on it.
 */
import type { ListWatch, WatchEvent } from './list-watch.js';
import { Reflector, type ReflectorOptions } from './reflector.js';

/**
 * Called for each change: `previous` undefined for an addition, `current` undefined for
 * a deletion; at a resync, both are the same cached object.
 */
export type ChangeHandler<T> = (previous: T | undefined, current: T | undefined) => void;

/** Options of an Informer. */
export interface InformerOptions extends ReflectorOptions {
  /** Hands every cached object to the handlers again this often, in ms; never by default (client-go's resync period). */
  readonly resyncPeriodMs?: number;
}

/** What the cache needs of an object. */
type Keyed = { readonly metadata?: { readonly name?: string; readonly namespace?: string; readonly resourceVersion?: string } };

/** An object's cache key: `namespace/name`, or `name` when cluster-scoped (client-go's MetaNamespaceKeyFunc). */
export function keyOf(object: Keyed): string {
  const { namespace, name = '' } = object.metadata ?? {};
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * A cache of one collection kept current by list and watch. Cached objects are
 * frozen: handlers and readers share them.
 *
 * @example
 * const informer = new Informer(listWatch);
 * informer.onChange((previous, current) => queue.add(keyOf((current ?? previous)!)));
 * void informer.run(signal);
 * await informer.synced;
 */
export class Informer<T extends Keyed> {
  readonly #reflector: Reflector<T>;
  readonly #resyncPeriodMs: number | undefined;
  readonly #cache = new Map<string, T>();
  readonly #handlers: ChangeHandler<T>[] = [];
  readonly #synced: Promise<void>;
  #markSynced!: () => void;

  constructor(listWatch: ListWatch<T>, options: InformerOptions = {}) {
    const sink = {
      replace: (items: readonly T[]) => {
        this.#replace(items);
        this.#markSynced();
      },
      apply: (event: WatchEvent<T>) => this.#apply(event),
    };
    this.#reflector = new Reflector(listWatch, sink, options);
    this.#resyncPeriodMs = options.resyncPeriodMs;
    this.#synced = new Promise((resolve) => (this.#markSynced = resolve));
  }

  /** Resolves once the first list is in the cache. */
  get synced(): Promise<void> {
    return this.#synced;
  }

  /** Adds a handler of every later change. */
  onChange(handler: ChangeHandler<T>): void {
    this.#handlers.push(handler);
  }

  /** The cached object of `key`. */
  get(key: string): T | undefined {
    return this.#cache.get(key);
  }

  /** Every cached object. */
  list(): T[] {
    return [...this.#cache.values()];
  }

  /** Lists and watches (and resyncs) until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const resync = this.#resyncPeriodMs === undefined ? undefined : setInterval(() => this.#resync(), this.#resyncPeriodMs);
    try {
      await this.#reflector.run(signal);
    } finally {
      clearInterval(resync);
    }
  }

  /** Hands every cached object to the handlers as unchanged; nothing before the first list. */
  #resync(): void {
    for (const object of this.#cache.values()) for (const handler of this.#handlers) handler(object, object);
  }

  /** Makes the cache hold exactly `items`, reporting what changed since the last list. */
  #replace(items: readonly T[]): void {
    const listed = new Map(items.map((item) => [keyOf(item), item]));
    for (const [key, cached] of this.#cache) {
      if (!listed.has(key)) this.#set(key, cached, undefined);
    }
    for (const [key, item] of listed) {
      const cached = this.#cache.get(key);
      // An object not cached is new even when it has no resourceVersion (a test's, or a proxy's that strips it).
      if (cached === undefined || cached.metadata?.resourceVersion !== item.metadata?.resourceVersion) this.#set(key, cached, item);
    }
  }

  #apply(event: WatchEvent<T>): void {
    const key = keyOf(event.object);
    if (event.type === 'DELETED') this.#set(key, this.#cache.get(key) ?? event.object, undefined);
    else this.#set(key, this.#cache.get(key), event.object);
  }

  #set(key: string, previous: T | undefined, current: T | undefined): void {
    if (current === undefined) this.#cache.delete(key);
    else this.#cache.set(key, deepFreeze(current));
    for (const handler of this.#handlers) handler(previous, current);
  }
}

/** Freezes an object and everything in it: the cache hands the same objects to every reader. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
