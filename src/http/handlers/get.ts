/** GET of one object, its status, or its Scale; or of a subresource whose query is its own options. */
import { getOptions } from '../request/get-options.js';
import type { Getter, GetterWithOptions } from '../../registry/endpoint-rest.js';
import { keyOf, respondObject, type ResourceContext } from './resource-context.js';

/** Answers `get`, at the state its `resourceVersion` and `resourceVersionMatch` ask for (the newest when unset). */
export async function getHandler(rc: ResourceContext, rest: Getter): Promise<void> {
  respondObject(rc, 200, await rest.get(keyOf(rc), getOptions(rc.query)));
}

/** Answers `get` of a REST object that reads its own options from the query, as kube's GetterWithOptions. */
export async function getWithOptionsHandler(rc: ResourceContext, rest: GetterWithOptions): Promise<void> {
  respondObject(rc, 200, await rest.getWithOptions(keyOf(rc), rc.query));
}
