/** DELETE of one object, with optional DeleteOptions in the body. */
import type { GracefulDeleter } from '../../registry/endpoint-rest.js';
import type { DeleteOptions } from '../../registry/request-options.js';
import { logRequestBody } from '../filters/audit-context.js';
import { decodeDeleteOptions, deleteOptions } from '../request/delete-options.js';
import { deleteValidation } from './admission.js';
import { readBodyBytes } from '../request/read-body.js';
import { keyOf, respondObject, writeOrigin, type ResourceContext } from './resource-context.js';

/** The DeleteOptions of a delete or deletecollection; a body sent is the audit's request object, as kube records it. */
export async function readDeleteOptions(rc: ResourceContext): Promise<DeleteOptions> {
  const body = decodeDeleteOptions(await readBodyBytes(rc.ctx.req), rc.ctx.get('Content-Type'));
  if (body) logRequestBody(rc.ctx, body);
  return deleteOptions(body, rc.query);
}

/**
 * Answers `delete` with the object: its last state, or marked for deletion while
 * finalizers hold it. 200, except 202 for an object kept though `orphanDependents: false`
 * asked for its dependents to go: kube answers so only then, not for any propagationPolicy.
 */
export async function deleteHandler(rc: ResourceContext, rest: GracefulDeleter): Promise<void> {
  const options = await readDeleteOptions(rc);
  const { object, deleted } = await rest.delete(keyOf(rc), options, deleteValidation(rc, options.dryRun), writeOrigin(rc, 'delete'));
  respondObject(rc, !deleted && options.orphanDependents === false ? 202 : 200, object);
}
