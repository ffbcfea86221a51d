/** PUT of one object, its status, or its Scale. */
import type { Updater } from '../../registry/endpoint-rest.js';
import { addWarnings } from './respond.js';
import { managedFieldsUpdate, mutatingAdmission, updatedObjectInfo, validations } from './admission.js';
import { checkObjectKey } from './check-object-key.js';
import { decodeObject } from './decode-object.js';
import { keyOf, respondObject, writeOrigin, type ResourceContext } from './resource-context.js';

/** Answers `update`; a stale `metadata.resourceVersion`, or a `metadata.uid` not the object's, is a 409. */
export async function updateHandler(rc: ResourceContext, rest: Updater): Promise<void> {
  const decoded = await decodeObject(rc, 'UpdateOptions');
  const { warnings, options, manager } = decoded;
  const key = keyOf(rc);
  // As kube's update handler: a body of another namespace or object, or of none, is a 400, before anything is read.
  const body = checkObjectKey(decoded.object, key.namespace, key.name);
  const { createValidation, updateValidation } = validations(rc, options.dryRun);
  // As kube's DefaultUpdatedObjectInfo: the uid the body carries is a precondition of the write.
  const uid = body.metadata?.uid;
  // The body is recorded by the field manager against each object read, then admitted (kube's transformers).
  const objInfo = updatedObjectInfo(() => body, managedFieldsUpdate(rc, manager), mutatingAdmission(rc, options.dryRun));
  const { object } = await rest.update(key, objInfo, createValidation, updateValidation, false, {
    dryRun: options.dryRun,
    manager,
    origin: writeOrigin(rc, 'update', manager),
    ...(uid ? { preconditions: { uid } } : {}),
  });
  addWarnings(rc.ctx, warnings);
  respondObject(rc, 200, object);
}
