/**
 * Routes `/apis/<group>/<version>/…` resource requests to the handler of their verb.
 */
import type { Context } from 'koa';
import type { ApiGroup, ApiResource } from '../apis/api-resource.js';
import { methodNotAllowed, pathNotFound, serviceUnavailable } from '../machinery/errors.js';
import { defaultTableColumns } from '../machinery/table.js';
import type { Registry } from '../registry/registry.js';
import { createHandler } from './handlers/create.js';
import { deleteHandler } from './handlers/delete.js';
import { deleteCollectionHandler } from './handlers/delete-collection.js';
import { getHandler } from './handlers/get.js';
import { listHandler } from './handlers/list.js';
import { patchHandler } from './handlers/patch.js';
import type { ResourceContext } from './handlers/resource-context.js';
import { updateHandler } from './handlers/update.js';
import { watchHandler } from './handlers/watch.js';
import { negotiateResourceOutput, type Endpoint } from './negotiation.js';
import { isWatch } from './query.js';
import { Representation } from './representation.js';
import { parseResourcePath } from './request-info.js';

const handlers: Readonly<Record<string, (rc: ResourceContext) => Promise<void>>> = {
  get: getHandler,
  list: listHandler,
  watch: watchHandler,
  create: createHandler,
  update: updateHandler,
  patch: patchHandler,
  delete: deleteHandler,
  deletecollection: deleteCollectionHandler,
};

/** Whether `resource` serves `verb` on `subresource` (`status` and `scale`: get, update, patch). */
function servesSubresource(resource: ApiResource, subresource: string, verb: string): boolean {
  const served = (subresource === 'status' && resource.subresources.status) || (subresource === 'scale' && resource.subresources.scale !== undefined);
  return served && ['get', 'update', 'patch'].includes(verb);
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
}

/** Handles one resource request. */
export async function handleResource(ctx: Context, group: string, version: string, rest: readonly string[], options: ResourceHandlerOptions): Promise<void> {
  const query = new URLSearchParams(ctx.querystring);
  const request = parseResourcePath(group, version, rest, ctx.method, isWatch(query));
  if (!request) throw pathNotFound();
  const resource = options.groups.find((g) => g.name === group)?.resources.find((r) => r.plural === request.resource);
  if (!resource || !resource.versions.some((v) => v.version === version)) throw pathNotFound();
  if (request.subresource !== undefined && !servesSubresource(resource, request.subresource, request.verb)) throw pathNotFound();
  if (!resource.namespaced && request.namespace !== undefined) throw pathNotFound();
  const needsNamespace = resource.namespaced && request.namespace === undefined;
  if (needsNamespace && request.verb !== 'list' && request.verb !== 'watch') {
    throw methodNotAllowed(ctx.method, `${request.resource}`);
  }
  // POST goes to collections only, as in kube.
  const handler = request.verb === 'create' && request.name !== undefined ? undefined : handlers[request.verb];
  if (!handler) throw methodNotAllowed(ctx.method, request.resource);
  const store = options.registry()?.store(group, resource.plural);
  if (!store) throw serviceUnavailable('the server is starting', 1);
  const output = negotiateResourceOutput(ctx.get('Accept'), endpointOf(request.verb));
  await handler({
    ctx,
    request,
    resource,
    store,
    query,
    output,
    representation: new Representation(resource, version, output, query, request.subresource === 'scale' ? defaultTableColumns : undefined),
    shutdown: options.shutdown,
    bookmarkIntervalMs: options.bookmarkIntervalMs,
  });
}
