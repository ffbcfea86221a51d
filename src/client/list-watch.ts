/** The list and watch calls of Cairn's collections through the typed client, for an `Informer`. */
import type { CairnClient } from './cairn-client.js';
import type { ListWatch } from './informer.js';
import type { Pipeline, RunnerClass } from './kinds.js';
import { unwrap } from './unwrap.js';

/**
 * List and watch of `path` across all namespaces. `watchTimeoutSeconds` bounds each
 * watch stream on the server; the watch then resumes from its last resourceVersion.
 */
export function listWatch(client: CairnClient, path: '/apis/cairn.dev/v1/pipelines', watchTimeoutSeconds?: number): ListWatch<Pipeline>;
export function listWatch(client: CairnClient, path: '/apis/cairn.dev/v1/runnerclasses', watchTimeoutSeconds?: number): ListWatch<RunnerClass>;
export function listWatch(
  client: CairnClient,
  path: '/apis/cairn.dev/v1/pipelines' | '/apis/cairn.dev/v1/runnerclasses',
  watchTimeoutSeconds?: number,
): ListWatch<Pipeline | RunnerClass> {
  return {
    async list(signal) {
      const list = await unwrap(client.api.GET(path, { signal }));
      return { items: list.items, resourceVersion: list.metadata?.resourceVersion ?? '' };
    },
    watch: (resourceVersion, signal) => client.watch(path, { resourceVersion, timeoutSeconds: watchTimeoutSeconds, signal }),
  };
}
