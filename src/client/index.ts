/**
 * The typed client of Cairn's `cairn.dev/v1` API, exported as `cairn-apiserver/client`.
 *
 * @example
 * import { createCairnClient, loadKubeconfig, unwrap } from 'cairn-apiserver/client';
 *
 * const client = createCairnClient(await loadKubeconfig('.data/kubeconfig'));
 * const pipeline = await unwrap(client.api.GET('/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}', {
 *   params: { path: { namespace: 'default', name: 'ingest' } },
 * }));
 * for await (const event of client.watch('/apis/cairn.dev/v1/pipelines', { resourceVersion: pipeline.metadata?.resourceVersion })) {
 *   console.log(event.type, event.object.status?.phase);
 * }
 */
export { ApiError, isConflict, isNotFound, ResourceExpiredError, type Status } from './api-error.js';
export { createCairnClient, type CairnClient } from './cairn-client.js';
export type { components, operations, paths } from './generated/cairn-dev-v1.js';
export { Informer, keyOf, type ChangeHandler, type InformerOptions, type ListWatch } from './informer.js';
export type * from './kinds.js';
export type { ListPage, ListPagesOptions, ListPath } from './list-pages.js';
export { listWatch } from './list-watch.js';
export { loadKubeconfig, type ClusterAccess } from './kubeconfig.js';
export type { LogAppend, LogOptions, PipelineName } from './pipeline-log.js';
export { unwrap } from './unwrap.js';
export type { WatchedObject, WatchEvent, WatchOptions, WatchPath } from './watch.js';
