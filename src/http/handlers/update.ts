/** PUT of one object. */
import { addWarnings } from '../respond.js';
import { decodeObject } from './decode-object.js';
import { namespaceOf, respondObject, subresourceOf, type ResourceContext } from './resource-context.js';

/** Answers `update`; a stale `metadata.resourceVersion` is a 409. */
export async function updateHandler(rc: ResourceContext): Promise<void> {
  const { body, options } = await decodeObject(rc);
  const { object, warnings } = await rc.store.update({ namespace: namespaceOf(rc), name: rc.request.name! }, body, options, subresourceOf(rc));
  addWarnings(rc.ctx, warnings);
  respondObject(rc, 200, object);
}
