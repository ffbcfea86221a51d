/**
 * The checks of request options that apimachinery's `metav1/validation` makes
 * (`ValidateFieldManager`, `ValidateDryRun`, `ValidateFieldValidation`): each returns
 * field errors, which the handlers report as a 422 on `CreateOptions.meta.k8s.io` (or
 * Update, Patch, Delete), as kube-apiserver's handlers do.
 */
import type { FieldError } from '../errors.js';
import { invalid, notSupported, tooLong, type FieldPath } from '../field-errors.js';

/** kube's `FieldManagerMaxLength`, in bytes. */
export const fieldManagerMaxLength = 128;

// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** `ValidateFieldManager`: at most 128 bytes, and only printable characters (each one reported at its byte offset). */
export function validateFieldManager(fieldManager: string, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (Buffer.byteLength(fieldManager) > fieldManagerMaxLength) errors.push(tooLong(path, fieldManagerMaxLength));
  let offset = 0;
  for (const char of fieldManager) {
    if (!printable.test(char)) {
      const rune = `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      errors.push(invalid(path, fieldManager, `invalid character ${rune} (at position ${offset})`));
    }
    offset += Buffer.byteLength(char);
  }
  return errors;
}

/** `ValidateDryRun`: every value is `All`; the error shows them all. */
export function validateDryRun(values: readonly string[], path: FieldPath): FieldError[] {
  return values.every((value) => value === 'All') ? [] : [notSupported(path, values, ['All'])];
}

/** The values `fieldValidation` takes, as kube lists them; case matters, and "" means `Warn`. */
export const fieldValidationValues = ['', 'Ignore', 'Strict', 'Warn'] as const;

/** `ValidateFieldValidation`: one of {@link fieldValidationValues}. */
export function validateFieldValidation(value: string, path: FieldPath): FieldError[] {
  return (fieldValidationValues as readonly string[]).includes(value) ? [] : [notSupported(path, value, fieldValidationValues)];
}
