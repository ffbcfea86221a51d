/**
 * A request's admission, as kube's handlers run it: the write's steps from the object it
 * computed to the object it stores (the field manager's record, then mutating admission),
 * and validating admission handed to the store as its validation functions.
 */
import { managedFieldsProblem, withManagedFields } from '../../machinery/managed-fields/managed-fields.js';
import type { KubeObject, StoredObject } from '../../machinery/meta/object.js';
import type { AdmissionAttributes, AdmissionOperation } from '../../registry/admission.js';
import type { ValidateObject, ValidateObjectUpdate } from '../../registry/store.js';
import { addWarnings } from './respond.js';
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
    namespace: rc.resource.namespaced ? (rc.namespace ?? '') : '',
    name: rc.name ?? object?.metadata?.name ?? oldObject?.metadata?.name ?? '',
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
async function admit(rc: ResourceContext, object: KubeObject, old: KubeObject | undefined, dryRun: boolean): Promise<KubeObject> {
  const admitted = (await rc.admission.admit?.(attributes(rc, old ? 'UPDATE' : 'CREATE', object, old, dryRun))) ?? object;
  const problem = managedFieldsProblem(admitted.metadata?.managedFields);
  if (problem === undefined) return admitted;
  addWarnings(rc.ctx, [
    `.metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: ${problem}`,
  ]);
  return withManagedFields(admitted, object.metadata?.managedFields ?? []);
}

/**
 * kube's `rest.TransformFunc`: one step from the object a write computed of `live`
 * (undefined on create) to the object it stores.
 */
export type Transformer = (live: KubeObject | undefined, object: KubeObject) => KubeObject | Promise<KubeObject>;

/**
 * kube's `rest.DefaultUpdatedObjectInfo(obj, transformers...)`: the object `computed`
 * makes of each live object the store reads (again, should another write win the race),
 * passed through `transformers` in order. Every write handler lists its steps in kube's
 * order: the (patched) object, then {@link managedFieldsUpdate}, then {@link mutatingAdmission}.
 */
export function updatedObjectInfo(
  computed: (live: KubeObject | undefined) => KubeObject,
  ...transformers: readonly Transformer[]
): (live: KubeObject | undefined) => Promise<KubeObject> {
  return async (live) => {
    let object = computed(live);
    for (const transform of transformers) object = await transform(live, object);
    return object;
  };
}

/**
 * kube's `scope.FieldManager.UpdateNoErrors` step of a write that is not an apply (an apply's
 * merge records itself): `manager` owns what it changed, before mutating admission runs, so
 * what a plugin adds is owned by no manager.
 */
export function managedFieldsUpdate(rc: ResourceContext, manager: string): Transformer {
  return (live, object) => rc.scope.recordUpdate(live, object, manager);
}

/** The mutating admission step of a write (see {@link admit}). */
export function mutatingAdmission(rc: ResourceContext, dryRun: boolean): Transformer {
  return (live, object) => admit(rc, object, live, dryRun);
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
