/** GET of one object, its status, or its Scale. */
import { resourceVersionParam } from '../request/query.js';
import type { Getter } from '../../registry/endpoint-rest.js';
import { keyOf, respondObject, type ResourceContext } from './resource-context.js';

/** Answers `get`, at the state its `resourceVersion` allows (the newest when unset). */
export async function getHandler(rc: ResourceContext, rest: Getter): Promise<void> {
  const resourceVersion = resourceVersionParam(rc.query);
  respondObject(rc, 200, await rest.get(keyOf(rc), resourceVersion === '' ? {} : { resourceVersion }));
}
