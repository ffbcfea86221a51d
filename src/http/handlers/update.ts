/** PUT of one object, its status, or its Scale. */
import { addWarnings } from '../respond.js';
import { decodeObject } from './decode-object.js';
import { keyOf, respondObject, subresourceOf, type ResourceContext } from './resource-context.js';

/** Answers `update`; a stale `metadata.resourceVersion` is a 409. */
export async function updateHandler(rc: ResourceContext): Promise<void> {
  const { body, options } = await decodeObject(rc);
  const { object, warnings } =
    rc.request.subresource === 'scale'
      ? await rc.store.updateScale(keyOf(rc), body, options)
      : await rc.store.update(keyOf(rc), body, options, subresourceOf(rc));
  addWarnings(rc.ctx, warnings);
  respondObject(rc, 200, object);
}
