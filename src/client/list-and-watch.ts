/**
 * A watch that never loses its place, as an async iterator: like client-go's
 * `watchtools.UntilWithSync` (an informer seen as a watch), it lists the collection,
 * yields every object as ADDED, then one SYNCED event, then the watch's changes; when
 * the server no longer has the watch's resourceVersion (410 Gone) it lists again and
 * yields the difference between what the caller was last told and the new list — an
 * object added, changed or deleted meanwhile as ADDED, MODIFIED or DELETED — and
 * carries on watching. A DELETED event carries the object as last yielded, whether the
 * watch or a relist noticed the deletion. A caller that applies every event to its own
 * map (by `keyOf`) always holds the collection as the server has it.
 *
 * The work is an `Informer`'s over a `ListWatch` (see list-watch.ts): this module only
 * turns its change handler into events. A refusal (4xx other than 410 and 429: the
 * path is wrong, the user may not list) ends the iteration with its ApiError; other
 * failures are retried after `retryDelayMs`, as the informer does.
 */
import { ApiError } from '../machinery/kubeclient/api-error.js';
import { Informer } from '../machinery/kubeclient/informer.js';
import type { ListWatch, WatchEvent } from '../machinery/kubeclient/list-watch.js';

/** A change, or SYNCED: every object of the first list has been yielded (the caller's copy is complete). */
export type ListAndWatchEvent<T> = WatchEvent<T> | { readonly type: 'SYNCED' };

/** When to stop, and what to do between failures. */
export interface ListAndWatchOptions {
  /** Ends the iteration (it then finishes without an error). */
  readonly signal?: AbortSignal;
  /** The wait before listing again after a failure other than 410, in ms; 1 s by default. */
  readonly retryDelayMs?: number;
  /** Told about every failure the iteration recovers from (410 Gone is routine and not reported). */
  readonly onError?: (error: unknown) => void;
}

/**
 * The objects of `source` and their changes, until `options.signal` aborts or the
 * caller leaves the loop.
 *
 * @example
 * for await (const event of listAndWatch(listWatch(client.api, '/apis/cairn.dev/v1/pipelines'))) {
 *   if (event.type === 'SYNCED') console.log('all pipelines listed');
 *   else console.log(event.type, event.object.metadata?.name);
 * }
 */
export async function* listAndWatch<T extends object>(source: ListWatch<T>, options: ListAndWatchOptions = {}): AsyncGenerator<ListAndWatchEvent<T>> {
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const pending: ListAndWatchEvent<T>[] = [];
  let wake: (() => void) | undefined;
  let refusal: { readonly error: unknown } | undefined;
  let ended = false;
  const push = (event: ListAndWatchEvent<T>) => {
    pending.push(event);
    wake?.();
  };

  const informer = new Informer(source, {
    retryDelayMs: options.retryDelayMs,
    onError(error) {
      if (!refused(error)) return options.onError?.(error);
      refusal = { error };
      stop.abort();
    },
  });
  informer.onChange((previous, current) => {
    if (current === undefined) push({ type: 'DELETED', object: previous! });
    else push({ type: previous === undefined ? 'ADDED' : 'MODIFIED', object: current });
  });
  // The first list's ADDED events are handed over before `synced` resolves, and the watch's first event needs I/O: SYNCED lands between them.
  void informer.synced.then(() => push({ type: 'SYNCED' }));
  const running = informer.run(signal).finally(() => {
    ended = true;
    wake?.();
  });

  try {
    for (;;) {
      const event = pending.shift();
      if (event) yield event;
      else if (refusal) throw refusal.error;
      else if (ended) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    stop.abort();
    await running;
  }
}

/** A request the server refuses for good: retrying would not help. */
function refused(error: unknown): boolean {
  return error instanceof ApiError && error.code >= 400 && error.code < 500 && error.code !== 410 && error.code !== 429;
}
