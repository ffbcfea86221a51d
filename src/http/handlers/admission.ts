/**
 * A request's admission, as kube's handlers run it: the field manager's record of the
 * write, then mutating admission, on the object a write computed; validating admission
 * handed to the store as its validation functions.
 */
import { managedFieldsProblem, withManagedFields } from '../../machinery/managed-fields/managed-fields.js';
import type { KubeObject, StoredObject } from '../../machinery/meta/object.js';
import type { AdmissionAttributes, AdmissionOperation } from '../../registry/admission.js';
import type { ValidateObject, ValidateObjectUpdate } from '../../registry/store.js';
import { addWarnings } from '../response/respond.js';
import type { ResourceContext } from './resource-context.js';

function attributes(
  rc: ResourceContext,
  operation: AdmissionOperation,
  object: KubeObject | undefined,
  oldObject: KubeObject | undefined,
  dryRun: boolean,
): AdmissionAttributes {
  return {
    operation,
    group: rc.resource.group,
    version: rc.scope.version,
    resource: rc.resource.plural,
    subresource: rc.scope.subresource,
    kind: rc.scope.kind,
    namespace: rc.resource.namespaced ? (rc.request.namespace ?? '') : '',
    name: rc.request.name ?? object?.metadata?.name ?? oldObject?.metadata?.name ?? '',
    object,
    oldObject,
    dryRun,
    user: rc.user,
    warn: (message) => addWarnings(rc.ctx, [message]),
  };
}

/**
 * Mutating admission of the object a create (no `old`) or update is about to store. As
 * kube's `NewManagedFieldsValidatingAdmissionController`, managedFields a plugin left
 * invalid are put back as they were before admission, with a warning.
 */
export async function admit(rc: ResourceContext, object: KubeObject, old: KubeObject | undefined, dryRun: boolean): Promise<KubeObject> {
  const admitted = (await rc.admission.admit?.(attributes(rc, old ? 'UPDATE' : 'CREATE', object, old, dryRun))) ?? object;
  const problem = managedFieldsProblem(admitted.metadata?.managedFields);
  if (problem === undefined) return admitted;
  addWarnings(rc.ctx, [
    `.metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: ${problem}`,
  ]);
  return withManagedFields(admitted, object.metadata?.managedFields ?? []);
}

/**
 * What kube's create, update and patch handlers do with the object a write that is not
 * an apply made of `live` (undefined on create), in their order: the field manager records
 * that `manager` made it, then mutating admission changes it. So the request's manager owns
 * what it sent, and what a webhook adds is nobody's. (An apply's merge records itself:
 * its result goes to {@link admit} alone.)
 */
export async function recordAndAdmit(
  rc: ResourceContext,
  live: KubeObject | undefined,
  object: KubeObject,
  manager: string,
  dryRun: boolean,
): Promise<KubeObject> {
  return admit(rc, rc.scope.recordUpdate(live, object, manager), live, dryRun);
}

/** The validating admission of a write, as the store's createValidation and updateValidation. */
export function validations(rc: ResourceContext, dryRun: boolean): { createValidation: ValidateObject; updateValidation: ValidateObjectUpdate } {
  const { admission } = rc;
  return {
    createValidation: (object) => admission.validate?.(attributes(rc, 'CREATE', object, undefined, dryRun)),
    updateValidation: (object, old: StoredObject) => admission.validate?.(attributes(rc, 'UPDATE', object, old, dryRun)),
  };
}

/** The validating admission of a delete (each object's, for a deletecollection), as the store's deleteValidation. */
export function deleteValidation(rc: ResourceContext, dryRun: boolean): ValidateObject {
  return (old) => rc.admission.validate?.(attributes(rc, 'DELETE', undefined, old, dryRun));
}
