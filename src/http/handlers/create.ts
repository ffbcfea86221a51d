/** POST to a collection. */
import { withoutSystemFields } from '../../machinery/meta/object.js';
import type { Creater } from '../../registry/endpoint-rest.js';
import { addWarnings } from './respond.js';
import { managedFieldsUpdate, mutatingAdmission, updatedObjectInfo, validations } from './admission.js';
import { decodeObject } from './decode-object.js';
import { namespaceOf, respondObject, writeOrigin, type ResourceContext } from './resource-context.js';

/**
 * Answers `create` with 201 and the stored object. In kube's order: the body is decoded
 * and wiped of the metadata only the server sets, the field manager records it, mutating
 * admission runs, then the store (BeforeCreate, validation, validating admission, storage).
 */
export async function createHandler(rc: ResourceContext, rest: Creater): Promise<void> {
  const { object, warnings, options, manager } = await decodeObject(rc, 'CreateOptions');
  const { createValidation } = validations(rc, options.dryRun);
  const objInfo = updatedObjectInfo(() => withoutSystemFields(object), managedFieldsUpdate(rc, manager), mutatingAdmission(rc, options.dryRun));
  const admitted = await objInfo(undefined);
  const created = await rest.create(namespaceOf(rc), admitted, createValidation, { dryRun: options.dryRun, origin: writeOrigin(rc, 'create', manager) });
  addWarnings(rc.ctx, warnings);
  respondObject(rc, 201, created);
}
