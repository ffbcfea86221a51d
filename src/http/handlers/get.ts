/** GET of one object, its status, or its Scale. */
import { keyOf, respondObject, type ResourceContext } from './resource-context.js';

/** Answers `get`. */
export async function getHandler(rc: ResourceContext): Promise<void> {
  const object = rc.request.subresource === 'scale' ? await rc.store.getScale(keyOf(rc)) : await rc.store.get(keyOf(rc));
  respondObject(rc, 200, object);
}
