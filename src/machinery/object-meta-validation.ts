/**
 * Validation of ObjectMeta as k8s.io/apimachinery/pkg/api/validation does it:
 * names, namespaces, labels and annotations.
 */
import type { FieldError } from './errors.js';
import { validateDns1123Label, validateDns1123Subdomain } from './names.js';
import type { ObjectMeta } from './object.js';
import { labelValueErrors, qualifiedNameErrors } from './qualified-name.js';

const totalAnnotationSizeLimit = 256 * 1024;

const invalid = (field: string, value: string, problem: string): FieldError => ({
  field,
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${JSON.stringify(value)}: ${problem}`,
});

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
  if (annotationBytes > totalAnnotationSizeLimit) {
    errors.push({
      field: 'metadata.annotations',
      reason: 'FieldValueTooLong',
      message: `Too long: must have at most ${totalAnnotationSizeLimit} bytes`,
    });
  }
  return errors;
}
