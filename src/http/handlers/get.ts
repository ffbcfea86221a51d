/** GET of one object. */
import { respond } from '../respond.js';
import { namespaceOf, type ResourceContext } from './resource-context.js';

/** Answers `get`. */
export async function getHandler(rc: ResourceContext): Promise<void> {
  const object = await rc.store.get({ namespace: namespaceOf(rc), name: rc.request.name! });
  respond(rc.ctx, 200, object, rc.format);
}
