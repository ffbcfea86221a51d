/**
 * A reflector, like client-go's: the one list-watch-relist loop. It lists a collection
 * and hands the items and the list's resourceVersion to a sink (`replace`), then
 * watches from there, handing each change to the sink (`apply`) and remembering the
 * last resourceVersion seen, a bookmark's included. When the server ends the watch
 * (its `timeoutSeconds`), it watches again from that resourceVersion without listing;
 * when the server no longer has it (410 Gone, or a list's expired continue token), it
 * lists again at once; on any other failure it tells `onError` and lists again after
 * `retryDelayMs`. What is kept of the objects is the sink's business: an Informer's
 * sink caches them, the garbage collector's keeps nothing.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ResourceExpiredError } from './api-error.js';
import type { ListWatch, WatchEvent } from './list-watch.js';

/** Where a reflector puts what it lists and watches. */
export interface ReflectorSink<T> {
  /** The whole collection, as a list just read it at `resourceVersion`: it replaces whatever came before. */
  replace(items: readonly T[], resourceVersion: string): void;
  /** One change the watch saw after the last list or change. */
  apply(event: WatchEvent<T>): void;
}

/** Options of a Reflector. */
export interface ReflectorOptions {
  /** The wait before listing again after a failure, in ms; 1 s by default. */
  readonly retryDelayMs?: number;
  /** Told about every failure the reflector recovers from by listing again (410 Gone is routine and not told). */
  readonly onError?: (error: unknown) => void;
}

/**
 * A watch the server ended sooner than this with nothing in it counts as a failure, as
 * client-go's "very short watch" does: watching again at once would spin.
 */
const shortWatchMs = 1000;

/**
 * Lists and watches one collection into a sink.
 *
 * @example
 * const reflector = new Reflector(listWatch, { replace: (items) => reset(items), apply: (event) => queue.add(event) });
 * await reflector.run(signal);
 */
export class Reflector<T extends { readonly metadata?: { readonly resourceVersion?: string } }> {
  readonly #listWatch: ListWatch<T>;
  readonly #sink: ReflectorSink<T>;
  readonly #retryDelayMs: number;
  readonly #onError: (error: unknown) => void;

  constructor(listWatch: ListWatch<T>, sink: ReflectorSink<T>, options: ReflectorOptions = {}) {
    this.#listWatch = listWatch;
    this.#sink = sink;
    this.#retryDelayMs = options.retryDelayMs ?? 1000;
    this.#onError = options.onError ?? (() => undefined);
  }

  /** Lists and watches until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    /** Where the next watch starts; undefined when a list must come first. */
    let resourceVersion: string | undefined;
    while (!signal.aborted) {
      try {
        if (resourceVersion === undefined) {
          const list = await this.#listWatch.list(signal);
          this.#sink.replace(list.items, list.resourceVersion);
          resourceVersion = list.resourceVersion;
        }
        const started = Date.now();
        let seen = false;
        for await (const event of this.#listWatch.watch(resourceVersion, signal)) {
          seen = true;
          resourceVersion = event.object.metadata?.resourceVersion || resourceVersion;
          if (event.type !== 'BOOKMARK') this.#sink.apply(event);
        }
        if (!seen && !signal.aborted && Date.now() - started < shortWatchMs) {
          throw new Error(`very short watch from resourceVersion ${resourceVersion}: the server ended it at once with no event`);
        }
      } catch (error) {
        if (signal.aborted) return;
        resourceVersion = undefined;
        // An expired resourceVersion is routine (the history window passed): list again at once.
        if (error instanceof ResourceExpiredError) continue;
        this.#onError(error);
        await sleep(this.#retryDelayMs, undefined, { signal }).catch(() => undefined);
      }
    }
  }
}
