/**
 * A watch that resumes, like client-go's RetryWatcher: events are read from one stream
 * of `GET …?watch=true&allowWatchBookmarks=true` after another, and when the server ends
 * a stream (its `timeoutSeconds`, a restart) or the connection fails, the next opens from
 * the last resourceVersion seen, BOOKMARK events included, so the caller sees every
 * change once and in order. Reopening after a failure (or a stream that ended at once
 * with nothing in it) waits 250 ms, doubling up to 8 s. A resourceVersion the server no
 * longer has ends the watch with a ResourceExpiredError (the caller lists again and
 * watches from there), a refusal (4xx but 429) with its ApiError.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, apiError } from './api-error.js';
import type { WatchEvent } from './list-watch.js';
import { watchEvents } from './watch-events.js';

/** Retries after a failed connection wait this long, doubling up to `maxRetryDelayMs`. */
const retryDelayMs = 250;
const maxRetryDelayMs = 8000;
/** A stream ended sooner than this with no event in it made no progress: reopening waits as after a failure. */
const emptyStreamMs = 1000;

/** Opens one stream from `resourceVersion` (undefined: the current objects first); throws the ApiError of a non-2xx answer. */
export type OpenWatchStream = (resourceVersion: string | undefined) => Promise<ReadableStream<Uint8Array>>;

type RawEvent = { readonly type: string; readonly object: { readonly metadata?: { readonly resourceVersion?: string } } };

/**
 * The events of the streams `open` opens, from `resourceVersion` on, until `signal` aborts.
 *
 * @example
 * for await (const event of retryWatch((rv) => openStream(path, rv), list.metadata.resourceVersion, signal)) apply(event);
 */
export async function* retryWatch<T>(open: OpenWatchStream, resourceVersion: string | undefined, signal?: AbortSignal): AsyncGenerator<WatchEvent<T>> {
  let failures = 0;
  while (!signal?.aborted) {
    const opened = Date.now();
    let received = false;
    try {
      const body = await open(resourceVersion);
      for await (const raw of watchEvents(body, signal)) {
        const event = raw as RawEvent;
        if (event.type === 'ERROR') throw apiError(500, event.object);
        resourceVersion = event.object.metadata?.resourceVersion ?? resourceVersion;
        received = true;
        if (event.type !== 'BOOKMARK') yield event as WatchEvent<T>;
      }
      if (received || Date.now() - opened >= emptyStreamMs) {
        failures = 0;
        continue;
      }
    } catch (error) {
      if (signal?.aborted) return;
      if (!retriable(error)) throw error;
      if (received) failures = 0;
    }
    try {
      await sleep(Math.min(maxRetryDelayMs, retryDelayMs * 2 ** failures++), undefined, { signal });
    } catch {
      return;
    }
  }
}

/** A failed connection, a server error or throttling is worth retrying; any other refusal is not. */
function retriable(error: unknown): boolean {
  if (!(error instanceof ApiError)) return !(error instanceof SyntaxError);
  return error.code >= 500 || error.code === 429;
}
