/** GET of one object, its status, or its Scale; or of a subresource whose query is its own options. */
import { resourceVersionParam } from '../request/query.js';
import type { Getter, GetterWithOptions } from '../../registry/endpoint-rest.js';
import { keyOf, respondObject, type ResourceContext } from './resource-context.js';

/** Answers `get`, at the state its `resourceVersion` allows (the newest when unset). */
export async function getHandler(rc: ResourceContext, rest: Getter): Promise<void> {
  const resourceVersion = resourceVersionParam(rc.query);
  respondObject(rc, 200, await rest.get(keyOf(rc), resourceVersion === '' ? {} : { resourceVersion }));
}

/** Answers `get` of a REST object that reads its own options from the query, as kube's GetterWithOptions. */
export async function getWithOptionsHandler(rc: ResourceContext, rest: GetterWithOptions): Promise<void> {
  respondObject(rc, 200, await rest.getWithOptions(keyOf(rc), rc.query));
}
