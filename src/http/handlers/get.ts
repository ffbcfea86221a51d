/** GET of one object. */
import { namespaceOf, respondObject, type ResourceContext } from './resource-context.js';

/** Answers `get`. */
export async function getHandler(rc: ResourceContext): Promise<void> {
  const object = await rc.store.get({ namespace: namespaceOf(rc), name: rc.request.name! });
  respondObject(rc, 200, object);
}
