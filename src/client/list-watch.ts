/**
 * The list and watch calls of a Cairn collection through the typed client, for an
 * `Informer` or `listAndWatch`: the list read in pages of bounded size (one snapshot), the watch from
 * its resourceVersion.
 */
import type { Client } from 'openapi-fetch';
import type { ListWatch } from '../machinery/kubeclient/list-watch.js';
import { listPages, type ListPath } from './list-pages.js';
import type { paths } from './paths.js';
import { watch, type WatchedObject, type WatchPath } from './watch.js';

/**
 * The page size of an informer's list, client-go's pager's default: a collection of any
 * size is read in requests of bounded size, never as one response.
 */
export const DEFAULT_LIST_PAGE_SIZE = 500;

/** A collection path that can be listed and watched, in any version, e.g. `/apis/cairn.dev/v1beta1/namespaces/{namespace}/pipelines`. */
export type ListWatchPath = WatchPath & ListPath;

/** Which objects of the collection. */
export interface ListWatchOptions<P extends ListWatchPath> {
  /** The path parameters of `P`, e.g. `{ namespace: 'default' }`. */
  readonly path?: paths[P]['get']['parameters']['path'];
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Lists in pages of this many objects; {@link DEFAULT_LIST_PAGE_SIZE} when unset. */
  readonly limit?: number;
  /** Bounds each watch stream on the server; the watch then resumes from its last resourceVersion. */
  readonly watchTimeoutSeconds?: number;
}

/**
 * List and watch of `path`.
 *
 * @example
 * const pipelines = new Informer(listWatch(client.api, '/apis/cairn.dev/v1/pipelines', { labelSelector: 'team=data' }));
 */
export function listWatch<P extends ListWatchPath>(api: Client<paths>, path: P, options: ListWatchOptions<P> = {}): ListWatch<WatchedObject<P>> {
  const { path: parameters, labelSelector, fieldSelector, limit = DEFAULT_LIST_PAGE_SIZE, watchTimeoutSeconds } = options;
  return {
    async list(signal) {
      const items: WatchedObject<P>[] = [];
      let resourceVersion = '';
      for await (const page of listPages(api, path, { path: parameters, labelSelector, fieldSelector, limit, signal })) {
        // Every page is of the first page's snapshot and carries its resourceVersion.
        resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
        items.push(...(page.items as WatchedObject<P>[]));
      }
      return { items, resourceVersion };
    },
    watch: (resourceVersion, signal) =>
      watch(api, path, { path: parameters, labelSelector, fieldSelector, resourceVersion, timeoutSeconds: watchTimeoutSeconds, signal }),
  };
}
