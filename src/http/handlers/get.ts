/** GET of one object, its status, or its Scale. */
import { keyOf, respondObject, type ResourceContext } from './resource-context.js';

/** Answers `get`. */
export async function getHandler(rc: ResourceContext): Promise<void> {
  respondObject(rc, 200, await rc.scope.rest.get(keyOf(rc)));
}
