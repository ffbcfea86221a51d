/**
 * The typed client of Cairn's `cairn.dev` API (`v1`, `v1beta1`, `v1alpha1`), exported
 * as `cairn-apiserver/client`.
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
export { ApiError, isConflict, isNotFound, ResourceExpiredError, type Status } from '../machinery/kubeclient/api-error.js';
export { createCairnClient, type CairnClient } from './cairn-client.js';
export type { components, operations } from './generated/cairn-dev-v1.js';
export { Informer, keyOf, type ChangeHandler, type InformerOptions } from '../machinery/kubeclient/informer.js';
export type { ListWatch, WatchEvent } from '../machinery/kubeclient/list-watch.js';
export type * from './kinds.js';
export type * as v1beta1 from './kinds-v1beta1.js';
export type * as v1alpha1 from './kinds-v1alpha1.js';
export { listAndWatch, type ListAndWatchEvent, type ListAndWatchOptions } from './list-and-watch.js';
export type { ListPage, ListPagesOptions, ListPath } from './list-pages.js';
export { getHistory, revisions } from './history.js';
export type { HistoryPath, HistoryRequest, RevisionListOf, RevisionOf } from './history.js';
export { DEFAULT_LIST_PAGE_SIZE, listWatch, type ListWatchOptions, type ListWatchPath } from './list-watch.js';
export { loadKubeconfig, type ClusterAccess } from '../machinery/kubeclient/kubeconfig.js';
export type { ApplyConfiguration, JsonPatchOperation, MergePatch, PatchedObject, PatchPath, PatchRequest, PatchType, StrategicMergePatch } from './patch.js';
export type { ObjectOf, PathParameters, paths } from './paths.js';
export type { LogAppend, LogOptions } from './pipeline-log.js';
export type { PipelineName, PipelineRequestOptions } from './pipeline-name.js';
export type { StatusOf, StatusPath, StatusRequest } from './subresources.js';
export { unwrap } from './unwrap.js';
export { versions, type Version } from './versions.js';
export type { WatchedObject, WatchOptions, WatchPath } from './watch.js';
