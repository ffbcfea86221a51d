/** POST to a collection. */
import { addWarnings } from '../respond.js';
import { decodeObject } from './decode-object.js';
import { namespaceOf, respondObject, type ResourceContext } from './resource-context.js';

/** Answers `create` with 201 and the stored object. */
export async function createHandler(rc: ResourceContext): Promise<void> {
  const { body, options } = await decodeObject(rc);
  const { object, warnings } = await rc.store.create(namespaceOf(rc), body, options);
  addWarnings(rc.ctx, warnings);
  respondObject(rc, 201, object);
}
