/**
 * The typed client of the `cairn.dev` API in every served version (`v1`, `v1beta1`,
 * `v1alpha1`): openapi-fetch over the types generated from the committed OpenAPI
 * documents, plus what OpenAPI cannot express — TLS client-certificate authentication
 * from a kubeconfig, lists in pages, watches that resume and relist, patches typed per
 * patch type, the status and scale subresources, the streamed log subresource, and an
 * object's history (its revisions, a page at a time).
 */
import createClient, { type Client } from 'openapi-fetch';
import { httpsFetch } from '../machinery/kubeclient/https-fetch.js';
import type { Scale } from './kinds.js';
import type { ClusterAccess } from '../machinery/kubeclient/kubeconfig.js';
import { getHistory, revisions, type HistoryPath, type HistoryRequest, type RevisionListOf, type RevisionOf } from './history.js';
import { listAndWatch, type ListAndWatchEvent, type ListAndWatchOptions } from './list-and-watch.js';
import { listPages, type ListPage, type ListPagesOptions, type ListPath } from './list-pages.js';
import { listWatch, type ListWatchOptions, type ListWatchPath } from './list-watch.js';
import { patch, type PatchedObject, type PatchPath, type PatchRequest } from './patch.js';
import type { ObjectOf, paths } from './paths.js';
import { appendLog, readLog, type LogAppend, type LogOptions } from './pipeline-log.js';
import type { PipelineName, PipelineRequestOptions } from './pipeline-name.js';
import { getScale, getStatus, patchStatus, replaceScale, replaceStatus, scale, type StatusOf, type StatusPath, type StatusRequest } from './subresources.js';
import type { WatchEvent } from '../machinery/kubeclient/list-watch.js';
import { watch, type WatchedObject, type WatchOptions, type WatchPath } from './watch.js';

/** A client of one Cairn server. */
export interface CairnClient {
  /**
   * Every operation of every version's OpenAPI document, typed: paths, parameters,
   * bodies and responses. Wrap calls in `unwrap()` to get the data or an ApiError.
   */
  readonly api: Client<paths>;
  /** The kubeconfig context's namespace. */
  readonly namespace: string;
  /** Lists a collection in pages of `options.limit` objects, following each page's `continue` token (see `listPages`). */
  listPages<P extends ListPath>(path: P, options?: ListPagesOptions<P>): AsyncGenerator<ListPage<P>>;
  /** Watches a collection from a resourceVersion, reopening the stream as needed; throws a ResourceExpiredError on 410 (see `watch`). */
  watch<P extends WatchPath>(path: P, options?: WatchOptions<P>): AsyncGenerator<WatchEvent<WatchedObject<P>>>;
  /** Lists a collection, yields its objects, SYNCED, then its changes, listing again on 410 (see `listAndWatch`). */
  listAndWatch<P extends ListWatchPath>(path: P, options?: ListWatchOptions<P> & ListAndWatchOptions): AsyncGenerator<ListAndWatchEvent<WatchedObject<P>>>;
  /** Patches an object, its status or its Scale with a patch of one type (see `patch`). */
  patch<P extends PatchPath>(path: P, request: PatchRequest<P>): Promise<PatchedObject<P>>;
  /** Reads an object through its status subresource; `path` is the object's. */
  getStatus<P extends StatusPath>(path: P, request: StatusRequest<P>): Promise<ObjectOf<P>>;
  /** Replaces an object's status with `request.body`'s; `path` is the object's. */
  replaceStatus<P extends StatusPath>(path: P, request: StatusRequest<P> & { readonly body: ObjectOf<P> }): Promise<ObjectOf<P>>;
  /** Patches an object's status; `path` is the object's. */
  patchStatus<P extends StatusPath>(path: P, request: PatchRequest<StatusOf<P>>): Promise<PatchedObject<StatusOf<P>>>;
  /** Reads a Pipeline's Scale. */
  getScale(pipeline: PipelineName, options?: PipelineRequestOptions): Promise<Scale>;
  /** Replaces a Pipeline's Scale. */
  replaceScale(pipeline: PipelineName, scale: Scale, options?: PipelineRequestOptions): Promise<Scale>;
  /** Sets a Pipeline's replicas, as `kubectl scale --replicas` does. */
  scale(pipeline: PipelineName, replicas: number, options?: PipelineRequestOptions): Promise<Scale>;
  /** Appends lines to one step of a Pipeline's log. */
  appendLog(pipeline: PipelineName, append: LogAppend, options?: PipelineRequestOptions): Promise<void>;
  /** Reads a Pipeline's log line by line; with `follow`, as lines are appended. */
  readLog(pipeline: PipelineName, options?: LogOptions): AsyncGenerator<string>;
  /** Reads one page of an object's history, newest first; `path` is the object's (see `getHistory`). */
  history<P extends HistoryPath>(path: P, request: HistoryRequest<P>): Promise<RevisionListOf<P>>;
  /** Every retained revision of an object, newest first, read a page at a time (see `revisions`). */
  revisions<P extends HistoryPath>(path: P, request: Omit<HistoryRequest<P>, 'continue'>): AsyncGenerator<RevisionOf<P>>;
  /** Closes the kept-alive connections. */
  close(): void;
}

/**
 * A client for the server and user of `access`.
 *
 * @example
 * const client = createCairnClient(await loadKubeconfig('.data/kubeconfig'));
 * const list = await unwrap(client.api.GET('/apis/cairn.dev/v1/namespaces/{namespace}/pipelines', {
 *   params: { path: { namespace: client.namespace } },
 * }));
 */
export function createCairnClient(access: ClusterAccess): CairnClient {
  const fetch = httpsFetch(access);
  const api = createClient<paths>({ baseUrl: access.server, fetch });
  return Object.freeze({
    api,
    namespace: access.namespace,
    listPages: <P extends ListPath>(path: P, options?: ListPagesOptions<P>) => listPages(api, path, options),
    watch: <P extends WatchPath>(path: P, options?: WatchOptions<P>) => watch(api, path, options),
    listAndWatch: <P extends ListWatchPath>(path: P, options?: ListWatchOptions<P> & ListAndWatchOptions) =>
      listAndWatch(listWatch(api, path, options), options),
    patch: <P extends PatchPath>(path: P, request: PatchRequest<P>) => patch(api, path, request),
    getStatus: <P extends StatusPath>(path: P, request: StatusRequest<P>) => getStatus(api, path, request),
    replaceStatus: <P extends StatusPath>(path: P, request: StatusRequest<P> & { readonly body: ObjectOf<P> }) => replaceStatus(api, path, request),
    patchStatus: <P extends StatusPath>(path: P, request: PatchRequest<StatusOf<P>>) => patchStatus(api, path, request),
    getScale: (pipeline: PipelineName, options?: PipelineRequestOptions) => getScale(api, pipeline, options),
    replaceScale: (pipeline: PipelineName, body: Scale, options?: PipelineRequestOptions) => replaceScale(api, pipeline, body, options),
    scale: (pipeline: PipelineName, replicas: number, options?: PipelineRequestOptions) => scale(api, pipeline, replicas, options),
    appendLog: (pipeline: PipelineName, append: LogAppend, options?: PipelineRequestOptions) => appendLog(api, pipeline, append, options),
    readLog: (pipeline: PipelineName, options?: LogOptions) => readLog(api, pipeline, options),
    history: <P extends HistoryPath>(path: P, request: HistoryRequest<P>) => getHistory(api, path, request),
    revisions: <P extends HistoryPath>(path: P, request: Omit<HistoryRequest<P>, 'continue'>) => revisions(api, path, request),
    close: () => fetch.close(),
  });
}
