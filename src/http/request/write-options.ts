/**
 * The options of a write (create, update, patch) from its query, validated as kube's
 * Validate{Create,Update,Patch}Options validate them.
 */
import { invalid, type FieldError } from '../../machinery/errors.js';
import { fieldPath } from '../../machinery/field-errors.js';
import { validateDryRun, validateFieldManager, validateFieldValidation } from '../../machinery/meta/options-validation.js';
import type { FieldValidation, WriteOptions } from '../../registry/request-options.js';
import type { Query } from './query.js';

/** Which options a write verb takes: the kind kube names in a 422 about them. */
export type WriteOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

const fieldValidations: Readonly<Record<string, FieldValidation>> = { '': 'Warn', Warn: 'Warn', Strict: 'Strict', Ignore: 'Ignore' };

/**
 * The options of create, update and patch, checked as kube's Validate{Create,Update,Patch}Options
 * in its order (`leading` first: the patch type's own errors); 422 on `<kind>.meta.k8s.io`.
 */
export function writeOptions(query: Query, kind: WriteOptionsKind, leading: readonly FieldError[] = []): WriteOptions {
  const fieldManager = query.get('fieldManager') ?? '';
  const dryRun = query.getAll('dryRun');
  const validation = query.get('fieldValidation') ?? '';
  const errors = [
    ...leading,
    ...validateFieldManager(fieldManager, fieldPath('fieldManager')),
    ...validateDryRun(dryRun, fieldPath('dryRun')),
    ...validateFieldValidation(validation, fieldPath('fieldValidation')),
  ];
  if (errors.length) throw invalid(kind, 'meta.k8s.io', '', errors);
  // An empty fieldManager is none: the write is recorded under the User-Agent, as in kube.
  return { dryRun: dryRun.length > 0, fieldManager: fieldManager || undefined, fieldValidation: fieldValidations[validation] };
}
