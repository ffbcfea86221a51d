/** DELETE of one object, with optional DeleteOptions in the body. */
import { deleteOptions } from '../request/delete-options.js';
import { deleteValidation } from './admission.js';
import { readBody } from '../request/read-body.js';
import { keyOf, respondObject, type ResourceContext } from './resource-context.js';

/** Answers `delete` with 200 and the object: its last state, or marked for deletion while finalizers hold it. */
export async function deleteHandler(rc: ResourceContext): Promise<void> {
  const options = deleteOptions(await readBody(rc.ctx.req), rc.ctx.get('Content-Type'), rc.query);
  const object = await rc.storages.store.delete(keyOf(rc), options, deleteValidation(rc, options.dryRun));
  respondObject(rc, 200, rc.scope.fromStorage(object));
}
