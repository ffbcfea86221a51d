/**
 * Validation of ObjectMeta as k8s.io/apimachinery/pkg/api/validation does it:
 * names, namespaces, labels and annotations.
 */
import type { FieldError } from './errors.js';
import { foregroundFinalizer, orphanFinalizer } from './finalizers.js';
import { validateDns1123Label, validateDns1123Subdomain } from './names.js';
import type { ObjectMeta } from './object.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { labelValueErrors, qualifiedNameErrors } from './qualified-name.js';

const totalAnnotationSizeLimit = 256 * 1024;

const invalid = (field: string, value: string, problem: string): FieldError => ({
  field,
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${JSON.stringify(value)}: ${problem}`,
});


function finalizerErrors(finalizers: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const finalizer of finalizers) {
    for (const p of qualifiedNameErrors(finalizer)) errors.push(invalid('metadata.finalizers', finalizer, p));
  }
  if (finalizers.includes(orphanFinalizer) && finalizers.includes(foregroundFinalizer)) {
    errors.push({
      field: 'metadata.finalizers',
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(finalizers)}: finalizer ${orphanFinalizer} and ${foregroundFinalizer} cannot be both set`,
    });
  }
  return errors;
}

// kube reports these against the list's path, not the item's.
function ownerReferenceErrors(references: readonly OwnerReference[]): FieldError[] {
  const errors: FieldError[] = [];
  const field = 'metadata.ownerReferences';
  let controller: string | undefined;
  for (const ref of references) {
    const version = ref.apiVersion?.split('/').at(-1) ?? '';
    if (!version) errors.push(invalid(`${field}.apiVersion`, ref.apiVersion ?? '', 'version must not be empty'));
    if (!ref.kind) errors.push(invalid(`${field}.kind`, ref.kind ?? '', 'kind must not be empty'));
    if (!ref.name) errors.push(invalid(`${field}.name`, ref.name ?? '', 'name must not be empty'));
    if (!ref.uid) errors.push(invalid(`${field}.uid`, ref.uid ?? '', 'uid must not be empty'));
    if (ref.controller === true) {
      const current = `${ref.kind}/${ref.name}`;
      if (controller === undefined) controller = current;
      else {
        errors.push({
          field,
          reason: 'FieldValueInvalid',
          message: `Invalid value: ${JSON.stringify(references)}: Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${current}`,
        });
      }
    }
  }
  return errors;
}

const immutable = (field: string, value: unknown): FieldError => ({
  field,
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${JSON.stringify(value)}: field is immutable`,
});

/**
 * What an update may not change in ObjectMeta: name, namespace, uid and
 * creationTimestamp (left out, they are carried over), and no new finalizers once
 * the object is being deleted.
 */
export function validateObjectMetaUpdate(meta: ObjectMeta, old: ObjectMeta): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of ['name', 'namespace', 'uid', 'creationTimestamp'] as const) {
    const value = meta[field];
    if (value !== undefined && value !== '' && value !== old[field]) errors.push(immutable(`metadata.${field}`, value));
  }
  if (old.deletionTimestamp) {
    const added = (meta.finalizers ?? []).filter((f) => !(old.finalizers ?? []).includes(f));
    if (added.length) {
      errors.push({
        field: 'metadata.finalizers',
        reason: 'FieldValueForbidden',
        message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
      });
    }
  }
  return errors;
}

/** Validates ObjectMeta of a new or updated object; `namespaced` says whether a namespace is required. */
export function validateObjectMeta(meta: ObjectMeta, namespaced: boolean): FieldError[] {
  const errors: FieldError[] = [];
  if (!meta.name) {
    errors.push({ field: 'metadata.name', reason: 'FieldValueRequired', message: 'Required value: name or generateName is required' });
  } else {
    for (const p of validateDns1123Subdomain(meta.name)) errors.push(invalid('metadata.name', meta.name, p));
  }
  if (namespaced) {
    if (!meta.namespace) errors.push({ field: 'metadata.namespace', reason: 'FieldValueRequired', message: 'Required value' });
    else for (const p of validateDns1123Label(meta.namespace)) errors.push(invalid('metadata.namespace', meta.namespace, p));
  } else if (meta.namespace) {
    errors.push({ field: 'metadata.namespace', reason: 'FieldValueForbidden', message: 'Forbidden: not allowed on this type' });
  }
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    for (const p of qualifiedNameErrors(key)) errors.push(invalid('metadata.labels', key, p));
    for (const p of labelValueErrors(value)) errors.push(invalid('metadata.labels', value, p));
  }
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(meta.annotations ?? {})) {
    for (const p of qualifiedNameErrors(key.toLowerCase())) errors.push(invalid('metadata.annotations', key, p));
    annotationBytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  errors.push(...finalizerErrors(meta.finalizers ?? []), ...ownerReferenceErrors(meta.ownerReferences ?? []));
  if (annotationBytes > totalAnnotationSizeLimit) {
    errors.push({
      field: 'metadata.annotations',
      reason: 'FieldValueTooLong',
      message: `Too long: must have at most ${totalAnnotationSizeLimit} bytes`,
    });
  }
  return errors;
}
