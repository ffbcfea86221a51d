/**
 * Validation of ObjectMeta as k8s.io/apimachinery/pkg/api/validation does it:
 * names, namespaces, labels and annotations.
 */
import type { FieldError } from './errors.js';
import { validateDns1123Label, validateDns1123Subdomain } from './names.js';
import type { ObjectMeta } from './object.js';

const qualifiedNamePattern = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const totalAnnotationSizeLimit = 256 * 1024;

/** Problems with a qualified name (`prefix/name`), as label and annotation keys use. */
export function validateQualifiedName(value: string): string[] {
  const parts = value.split('/');
  let name = value;
  const problems: string[] = [];
  if (parts.length === 2) {
    const [prefix, rest] = parts as [string, string];
    name = rest;
    if (prefix.length === 0) problems.push('prefix part must be non-empty');
    else problems.push(...validateDns1123Subdomain(prefix).map((p) => `prefix part ${p}`));
  } else if (parts.length > 2) {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) problems.push('name part must be non-empty');
  else if (name.length > 63) problems.push('name part must be no more than 63 characters');
  if (name.length > 0 && !qualifiedNamePattern.test(name)) {
    problems.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
  }
  return problems;
}

/** Problems with a label value (may be empty). */
export function validateLabelValue(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 63) problems.push('must be no more than 63 characters');
  if (value.length > 0 && !qualifiedNamePattern.test(value)) {
    problems.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
  }
  return problems;
}

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
    for (const p of validateQualifiedName(key)) errors.push(invalid('metadata.labels', key, p));
    for (const p of validateLabelValue(value)) errors.push(invalid(`metadata.labels`, value, p));
  }
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(meta.annotations ?? {})) {
    for (const p of validateQualifiedName(key.toLowerCase())) errors.push(invalid('metadata.annotations', key, p));
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
