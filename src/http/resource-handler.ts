/**
 * Routes `/apis/<group>/<version>/…` resource requests to the handler of their verb: the
 * request's RequestInfo (parsed once, by the first filter) is looked up in the endpoint
 * table, and the handler is the one for the verb that the endpoint's REST object implements.
 */
import type { Context } from 'koa';
import { badRequest, methodNotAllowed, pathNotFound, serviceUnavailable } from '../machinery/errors.js';
import { validatePathSegmentName } from '../machinery/meta/names.js';
import { noAdmission, type Admission, type RequestUser } from '../registry/admission.js';
import type { EndpointREST } from '../registry/endpoint-rest.js';
import type { Endpoint, EndpointTable, ServedEndpoint } from '../registry/endpoints.js';
import type { Registry } from '../registry/registry.js';
import { appendLogHandler } from './handlers/append-log.js';
import { createHandler } from './handlers/create.js';
import { deleteHandler } from './handlers/delete.js';
import { deleteCollectionHandler } from './handlers/delete-collection.js';
import { getHandler, getWithOptionsHandler } from './handlers/get.js';
import { listHandler } from './handlers/list.js';
import { logHandler } from './handlers/log.js';
import { patchHandler } from './handlers/patch.js';
import type { ResourceContext } from './handlers/resource-context.js';
import { updateHandler } from './handlers/update.js';
import { watchHandler } from './handlers/watch.js';
import { negotiateResourceOutput, type Endpoint as OutputEndpoint, type OutputTarget } from './response/negotiation.js';
import { Representation } from './response/representation.js';
import { includeObjectParam } from './request/query.js';
import { requestInfoOf } from './filters/request-info.js';
import type { RequestInfo } from './request/request-info.js';
import type { WatchEventMetrics } from './filters/metrics.js';

/** A verb's handler over a REST object that implements what it calls. */
interface Route {
  readonly verb: string;
  /** The REST method the handler calls. */
  readonly method: string;
  /** POST goes to collections only, PUT and PATCH to objects only, as kube's routes take them; other verbs say it themselves. */
  readonly named?: boolean;
  /** What the response is negotiated as; undefined for a handler that answers text (or a JSON Status) whatever the client accepts, as kube's pods/log does. */
  readonly output?: OutputEndpoint;
  /** The handler bound to `rest`, whose endpoint implements `method`. */
  readonly bind: (rest: EndpointREST) => (rc: ResourceContext) => Promise<void>;
}

function route<R extends object>(
  verb: string,
  method: keyof R & string,
  handler: (rc: ResourceContext, rest: R) => Promise<void>,
  options: Pick<Route, 'named' | 'output'>,
): Route {
  return {
    verb,
    method,
    ...options,
    bind: (rest) => (rc) => handler(rc, rest as R),
  };
}

/** Each verb's handlers, by the REST method they call: a log's `get` and `create` are a read and an append of lines. */
const routes: readonly Route[] = [
  route('get', 'get', getHandler, { output: 'object' }),
  route('get', 'getWithOptions', getWithOptionsHandler, { output: 'object' }),
  route('get', 'open', logHandler, {}),
  route('list', 'list', listHandler, { output: 'list' }),
  route('watch', 'watch', watchHandler, { output: 'watch' }),
  route('create', 'create', createHandler, { named: false, output: 'object' }),
  route('create', 'append', appendLogHandler, { named: true }),
  route('update', 'update', updateHandler, { named: true, output: 'object' }),
  route('patch', 'update', patchHandler, { named: true, output: 'object' }),
  route('delete', 'delete', deleteHandler, { output: 'object' }),
  route('deletecollection', 'deleteCollection', deleteCollectionHandler, { output: 'list' }),
];

/** Where the resource handler finds the endpoints, and the registry once the storage is up. */
export interface ResourceHandlerOptions {
  /** The endpoints served, as known before storage is up: what a request names is looked up here until the registry exists. */
  readonly endpoints: EndpointTable;
  /** The registry, or undefined while the server is still starting. */
  readonly registry: () => Registry | undefined;
  readonly shutdown: AbortSignal;
  /** Milliseconds between BOOKMARK events of watches that allow them. */
  readonly bookmarkIntervalMs: number;
  /** Where watches record the events they send. */
  readonly watchEvents: WatchEventMetrics;
  /** How long a watch waits for its client to read before ending it. */
  readonly unresponsiveWatcherTimeoutMs: number;
  /** The admission chain writes go through; none when undefined. */
  readonly admission?: Admission;
}

function checkSegment(kind: string, value: string): string {
  const problems = validatePathSegmentName(value);
  if (problems.length) throw badRequest(`${kind} "${value}": ${problems.join(', ')}`);
  return value;
}

function isServed(endpoint: Endpoint): endpoint is ServedEndpoint {
  return 'rest' in endpoint;
}

/** What a resource request resolved to: its endpoint, the route of its verb, and the object the path names. */
export interface ResolvedRequest {
  readonly endpoint: ServedEndpoint;
  /** The REST method the handler calls (`get`, `open`, `update`, …). */
  readonly method: string;
  readonly output?: OutputEndpoint;
  readonly handler: (rc: ResourceContext) => Promise<void>;
  readonly namespace?: string;
  readonly name?: string;
}

/**
 * The endpoint and handler of a resource request, from its RequestInfo: 404 for what no
 * endpoint serves, 405 for a verb the endpoint does not take there, 400 for a namespace or
 * name that cannot be a path segment, and 503 while `endpoints` are not served yet.
 */
export function resolveRequest(info: RequestInfo, method: string, endpoints: EndpointTable<Endpoint>): ResolvedRequest {
  // Served here: a legacy watch by GET, and no more than resource, name and subresource (`proxy` is not served). A path
  // ending in `/` names an empty segment, which no object or subresource has (RequestInfo drops it, as kube's splitPath).
  const legacyWatchByOtherMethod = info.verb === 'watch' && method !== 'GET' && method !== 'HEAD';
  if (!info.isResourceRequest || info.verb === 'proxy' || legacyWatchByOtherMethod || info.path.endsWith('/')) throw pathNotFound();
  const [resourceName, name, subresource, ...extra] = info.parts;
  if (!resourceName || extra.length) throw pathNotFound();
  const namespace = info.namespace === '' ? undefined : checkSegment('namespace', info.namespace);
  if (name !== undefined) checkSegment('name', name);
  const endpoint = endpoints.lookup(info.apiGroup, info.apiVersion, resourceName, subresource === undefined ? '' : info.subresource);
  if (!endpoint || (endpoint.subresource !== '' && !endpoint.verbs.includes(info.verb))) throw pathNotFound();
  const { resource } = endpoint;
  if (!resource.namespaced && namespace !== undefined) throw pathNotFound();
  if (resource.namespaced && namespace === undefined && info.verb !== 'list' && info.verb !== 'watch') throw methodNotAllowed();
  const route = routes.find((r) => r.verb === info.verb && endpoint.methods.includes(r.method) && (r.named === undefined || r.named === (name !== undefined)));
  if (!route) throw methodNotAllowed();
  if (!isServed(endpoint)) throw serviceUnavailable('the server is starting', 1);
  return { endpoint, method: route.method, output: route.output, handler: route.bind(endpoint.rest), namespace, name };
}

/** Handles one resource request. */
export async function handleResource(ctx: Context, options: ResourceHandlerOptions): Promise<void> {
  const resolved = resolveRequest(requestInfoOf(ctx), ctx.method, options.registry()?.endpoints ?? options.endpoints);
  const { endpoint, namespace, name } = resolved;
  const { resource } = endpoint;
  const query = new URLSearchParams(ctx.querystring);
  const output: OutputTarget = resolved.output ? negotiateResourceOutput(ctx.get('Accept'), resolved.output) : { format: 'json' };
  await resolved.handler({
    ctx,
    namespace,
    name,
    resource,
    scope: endpoint.scope,
    rest: endpoint.rest,
    admission: options.admission ?? noAdmission,
    user: ctx.state.user as RequestUser | undefined,
    query,
    output,
    representation: new Representation(resource, endpoint.version, output, () => includeObjectParam(query), endpoint.scope),
    shutdown: options.shutdown,
    bookmarkIntervalMs: options.bookmarkIntervalMs,
    watchEvents: options.watchEvents,
    unresponsiveWatcherTimeoutMs: options.unresponsiveWatcherTimeoutMs,
  });
}
