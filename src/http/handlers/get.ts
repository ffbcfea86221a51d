/** GET of one object, its status, or its Scale. */
import { resourceVersionParam } from '../request/query.js';
import { keyOf, respondObject, type ResourceContext } from './resource-context.js';

/** Answers `get`, at the state its `resourceVersion` allows (the newest when unset). */
export async function getHandler(rc: ResourceContext): Promise<void> {
  const resourceVersion = resourceVersionParam(rc.query);
  respondObject(rc, 200, await rc.scope.rest.get(keyOf(rc), resourceVersion === '' ? {} : { resourceVersion }));
}
