/**
 * Watching a collection of the typed client's paths: kubeclient's `retryWatch` (client-go's
 * RetryWatcher: it reopens the stream from the last resourceVersion seen, bookmarks
 * included, and ends with a ResourceExpiredError when the server no longer has it) over
 * streams opened through openapi-fetch.
 */
import type { Client } from 'openapi-fetch';
import { apiError } from '../machinery/kubeclient/api-error.js';
import type { WatchEvent } from '../machinery/kubeclient/list-watch.js';
import { retryWatch } from '../machinery/kubeclient/retry-watch.js';
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
export function watchPath<T>(
  api: Client<paths>,
  path: string,
  options: Omit<WatchOptions<WatchPath>, 'path'> & { readonly accept?: string; readonly path?: object } = {},
): AsyncGenerator<WatchEvent<T>> {
  return retryWatch<T>((resourceVersion) => open(api, path, options, resourceVersion), options.resourceVersion, options.signal);
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
