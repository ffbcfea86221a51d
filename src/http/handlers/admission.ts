/**
 * A request's admission, as kube's handlers run it: mutating admission on the object a
 * write computed, validating admission handed to the store as its validation functions.
 */
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

/** Mutating admission of the object a create (no `old`) or update is about to store. */
export async function admit(rc: ResourceContext, object: KubeObject, old: KubeObject | undefined, dryRun: boolean): Promise<KubeObject> {
  return (await rc.admission.admit?.(attributes(rc, old ? 'UPDATE' : 'CREATE', object, old, dryRun))) ?? object;
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
