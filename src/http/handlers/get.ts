/** GET of one object, its status, or its Scale. */
import { getOptions } from '../request/get-options.js';
import type { Getter } from '../../registry/endpoint-rest.js';
import { keyOf, respondObject, type ResourceContext } from './resource-context.js';

/** Answers `get`, at the state its `resourceVersion` and `resourceVersionMatch` ask for (the newest when unset). */
export async function getHandler(rc: ResourceContext, rest: Getter): Promise<void> {
  respondObject(rc, 200, await rest.get(keyOf(rc), getOptions(rc.query)));
}
