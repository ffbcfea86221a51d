/**
 * Routes `/apis/<group>/<version>/…` resource requests to the handler of their verb.
 */
import type { Context } from 'koa';
import type { ApiGroup, ApiResource } from '../apis/api-resource.js';
import { methodNotAllowed, pathNotFound, serviceUnavailable } from '../machinery/errors.js';
import { noAdmission, type Admission, type RequestUser } from '../registry/admission.js';
import type { Registry } from '../registry/registry.js';
import { appendLogHandler } from './handlers/append-log.js';
import { createHandler } from './handlers/create.js';
import { deleteHandler } from './handlers/delete.js';
import { deleteCollectionHandler } from './handlers/delete-collection.js';
import { getHandler } from './handlers/get.js';
import { listHandler } from './handlers/list.js';
import { logHandler } from './handlers/log.js';
import { patchHandler } from './handlers/patch.js';
import type { ResourceContext } from './handlers/resource-context.js';
import { updateHandler } from './handlers/update.js';
import { watchHandler } from './handlers/watch.js';
import { subresourcesOf } from './discovery/discovery.js';
import { negotiateResourceOutput, type Endpoint, type OutputTarget } from './response/negotiation.js';
import { isWatch } from './request/query.js';
import { Representation } from './response/representation.js';
import { parseResourcePath, type ResourceRequest } from './request/request-info.js';
import { requestScope } from './request-scope.js';
import type { WatchEventMetrics } from './filters/metrics.js';

type Handler = (rc: ResourceContext) => Promise<void>;

const handlers: Readonly<Record<string, Handler>> = {
  get: getHandler,
  list: listHandler,
  watch: watchHandler,
  create: createHandler,
  update: updateHandler,
  patch: patchHandler,
  delete: deleteHandler,
  deletecollection: deleteCollectionHandler,
};

/** The handlers of the `log` subresource: a read, and an append by POST to the object's `log`. */
const logHandlers: Readonly<Record<string, Handler>> = {
  get: logHandler,
  create: appendLogHandler,
};

/** The handler of a request's verb, on the resource or on its log. */
function handlerOf(request: ResourceRequest): Handler | undefined {
  if (request.subresource === 'log') return logHandlers[request.verb];
  // POST goes to collections only, PUT and PATCH to objects only, as kube's routes take them.
  if (request.verb === 'create' && request.name !== undefined) return undefined;
  if ((request.verb === 'update' || request.verb === 'patch') && request.name === undefined) return undefined;
  return handlers[request.verb];
}

/** Whether `resource` serves `verb` on `subresource`: what discovery lists. */
function servesSubresource(resource: ApiResource, group: string, version: string, subresource: string, verb: string): boolean {
  return subresourcesOf(resource, { group, version, kind: resource.kind }).some((s) => s.name === subresource && s.verbs.includes(verb));
}

function endpointOf(verb: string): Endpoint {
  if (verb === 'deletecollection') return 'list';
  return verb === 'list' || verb === 'watch' ? verb : 'object';
}

/** Where the resource handler finds the registry, once the storage is up. */
export interface ResourceHandlerOptions {
  readonly groups: readonly ApiGroup[];
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

/** Handles one resource request. */
export async function handleResource(ctx: Context, group: string, version: string, rest: readonly string[], options: ResourceHandlerOptions): Promise<void> {
  const query = new URLSearchParams(ctx.querystring);
  const request = parseResourcePath(group, version, rest, ctx.method, isWatch(query));
  if (!request) throw pathNotFound();
  const resource = options.groups.find((g) => g.name === group)?.resources.find((r) => r.plural === request.resource);
  if (!resource || !resource.versions.some((v) => v.version === version)) throw pathNotFound();
  if (request.subresource !== undefined && !servesSubresource(resource, group, version, request.subresource, request.verb)) throw pathNotFound();
  if (!resource.namespaced && request.namespace !== undefined) throw pathNotFound();
  const needsNamespace = resource.namespaced && request.namespace === undefined;
  if (needsNamespace && request.verb !== 'list' && request.verb !== 'watch') {
    throw methodNotAllowed();
  }
  const handler = handlerOf(request);
  if (!handler) throw methodNotAllowed();
  const registry = options.registry();
  const storages = registry?.storages(group, resource.plural);
  if (!registry || !storages) throw serviceUnavailable('the server is starting', 1);
  const scope = requestScope(resource, version, request.subresource, storages, registry.validator);
  if (!scope) throw pathNotFound();
  // A log answers text/plain (or a JSON Status) whatever the client accepts, as kube's pods/log does.
  const output: OutputTarget = request.subresource === 'log' ? { format: 'json' } : negotiateResourceOutput(ctx.get('Accept'), endpointOf(request.verb));
  await handler({
    ctx,
    request,
    resource,
    scope,
    storages,
    admission: options.admission ?? noAdmission,
    user: ctx.state.user as RequestUser | undefined,
    query,
    output,
    representation: new Representation(resource, version, output, query, scope.tableColumns),
    shutdown: options.shutdown,
    bookmarkIntervalMs: options.bookmarkIntervalMs,
    watchEvents: options.watchEvents,
    unresponsiveWatcherTimeoutMs: options.unresponsiveWatcherTimeoutMs,
  });
}
