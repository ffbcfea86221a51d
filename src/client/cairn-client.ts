/**
 * The typed client of the `cairn.dev/v1` API: openapi-fetch over the types generated
 * from the committed OpenAPI document, plus what OpenAPI cannot express — TLS
 * client-certificate authentication from a kubeconfig, lists in pages, watches that
 * resume, and the streamed log subresource.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/cairn-dev-v1.js';
import { httpsFetch } from './https-fetch.js';
import type { ClusterAccess } from './kubeconfig.js';
import { listPages, type ListPage, type ListPagesOptions, type ListPath } from './list-pages.js';
import { appendLog, readLog, type LogAppend, type LogOptions, type PipelineName } from './pipeline-log.js';
import { watch, type WatchedObject, type WatchEvent, type WatchOptions, type WatchPath } from './watch.js';

/** A client of one Cairn server. */
export interface CairnClient {
  /**
   * Every operation of the OpenAPI document, typed: paths, parameters, bodies and
   * responses. Wrap calls in `unwrap()` to get the data or an ApiError.
   */
  readonly api: Client<paths>;
  /** The kubeconfig context's namespace. */
  readonly namespace: string;
  /** Lists a collection in pages of `options.limit` objects, following each page's `continue` token (see `listPages`). */
  listPages<P extends ListPath>(path: P, options?: ListPagesOptions<P>): AsyncGenerator<ListPage<P>>;
  /** Watches a collection from a resourceVersion, reopening the stream as needed (see `watch`). */
  watch<P extends WatchPath>(path: P, options?: WatchOptions<P>): AsyncGenerator<WatchEvent<WatchedObject<P>>>;
  /** Appends lines to one step of a Pipeline's log. */
  appendLog(pipeline: PipelineName, append: LogAppend): Promise<void>;
  /** Reads a Pipeline's log line by line; with `follow`, as lines are appended. */
  readLog(pipeline: PipelineName, options?: LogOptions): AsyncGenerator<string>;
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
    appendLog: (pipeline: PipelineName, append: LogAppend) => appendLog(api, pipeline, append),
    readLog: (pipeline: PipelineName, options?: LogOptions) => readLog(api, pipeline, options),
    close: () => fetch.close(),
  });
}
