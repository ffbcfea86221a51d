/**
 * Watching a collection like client-go's RetryWatcher: events are read from the
 * newline-delimited JSON stream of `GET …?watch=true`, and when the server ends the
 * stream (its `timeoutSeconds`, a restart) or the connection fails, the watch reopens
 * from the last resourceVersion it saw, BOOKMARK events included, so the caller sees
 * every change once and in order. A resourceVersion the server no longer has ends
 * the watch with a ResourceExpiredError: the caller lists again and watches from there.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from 'openapi-fetch';
import { ApiError, apiError } from '../kubeclient/api-error.js';
import type { WatchEvent } from '../kubeclient/list-watch.js';
import { watchEvents } from '../kubeclient/watch-events.js';
import type { paths, UntypedCall } from './paths.js';

/** The paths of collections that can be watched (their GET takes `watch`). */
export type WatchPath = {
  [P in keyof paths]: paths[P] extends { get: { parameters: { query?: { watch?: boolean } } } } ? P : never;
}[keyof paths];

/** The objects a watch of `P` delivers: the items of its list. */
export type WatchedObject<P extends WatchPath> = paths[P]['get']['responses'][200]['content']['application/json']['items'][number];

/** What to watch, and from where. */
export interface WatchOptions<P extends WatchPath> {
  /** The path parameters of `P`, e.g. `{ namespace: 'default' }`. */
  readonly path?: paths[P]['get']['parameters']['path'];
  /**
   * Deliver the changes after this resourceVersion, typically a list's. Unset: the
   * current objects first (as ADDED), then changes.
   */
  readonly resourceVersion?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** How long the server keeps each stream open; the watch then reopens. kube-apiserver picks 30–60 min. */
  readonly timeoutSeconds?: number;
  /** Ends the watch (the iteration then finishes without an error). */
  readonly signal?: AbortSignal;
}

/** Retries after a failed connection wait this long, doubling up to `maxRetryDelayMs`. */
const retryDelayMs = 250;
const maxRetryDelayMs = 8000;
/** A stream ended sooner than this with no event in it made no progress: reopening waits as after a failure. */
const emptyStreamMs = 1000;

type RawEvent = { readonly type: string; readonly object: { readonly metadata?: { readonly resourceVersion?: string } } };

/**
 * Watches `path` until `options.signal` aborts; throws a ResourceExpiredError on
 * 410 Gone and an ApiError when the server refuses the watch (4xx).
 *
 * @example
 * for await (const event of watch(api, '/apis/cairn.dev/v1/pipelines', { resourceVersion: list.metadata.resourceVersion, signal })) {
 *   console.log(event.type, event.object.metadata?.name);
 * }
 */
export function watch<P extends WatchPath>(api: Client<paths>, path: P, options: WatchOptions<P> = {}): AsyncGenerator<WatchEvent<WatchedObject<P>>> {
  return watchPath(api, path, options);
}

/**
 * `watch` of any path the server serves, typed by the caller: for collections found
 * through discovery, which the OpenAPI types cannot name. `accept` asks for another
 * representation of each event's object, e.g.
 * `application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1` for metadata only.
 */
export async function* watchPath<T>(
  api: Client<paths>,
  path: string,
  options: Omit<WatchOptions<WatchPath>, 'path'> & { readonly accept?: string; readonly path?: object } = {},
): AsyncGenerator<WatchEvent<T>> {
  const { signal } = options;
  let resourceVersion = options.resourceVersion;
  let failures = 0;
  while (!signal?.aborted) {
    const opened = Date.now();
    let received = false;
    try {
      const body = await open(api, path, options, resourceVersion);
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

/** Opens one stream of the watch. */
async function open(
  api: Client<paths>,
  path: string,
  options: Parameters<typeof watchPath>[2] & object,
  resourceVersion: string | undefined,
): Promise<ReadableStream<Uint8Array>> {
  const query = {
    watch: true,
    allowWatchBookmarks: true,
    resourceVersion,
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    timeoutSeconds: options.timeoutSeconds,
  };
  const { data, error, response } = await (api.GET as unknown as UntypedCall<ReadableStream<Uint8Array> | null>)(path, {
    params: { path: options.path, query },
    ...(options.accept ? { headers: { Accept: options.accept } } : {}),
    parseAs: 'stream',
    signal: options.signal,
  });
  if (!response.ok || !data) throw apiError(response.status, error);
  return data;
}

/** A failed connection, a server error or throttling is worth retrying; any other refusal is not. */
function retriable(error: unknown): boolean {
  if (!(error instanceof ApiError)) return !(error instanceof SyntaxError);
  return error.code >= 500 || error.code === 429;
}
