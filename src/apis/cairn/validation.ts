/**
 * Kind-specific validation of cairn.dev objects beyond their schemas: rules a
 * structural schema cannot say (unique step names, the names a reference may hold).
 */
import type { FieldError } from '../../machinery/errors.js';
import { validatePathSegmentName, type NameValidation } from '../../machinery/meta/names.js';
import { isPlainObject, type KubeObject } from '../../machinery/meta/object.js';
import { duplicate, fieldPath, invalid, type FieldPath } from '../../machinery/field-errors.js';

function duplicateNames(items: unknown, path: FieldPath, key: string): FieldError[] {
  if (!Array.isArray(items)) return [];
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  items.forEach((item, i) => {
    const value = isPlainObject(item) ? item[key] : undefined;
    if (typeof value !== 'string') return;
    if (seen.has(value)) {
      errors.push(duplicate(path.index(i).child(key), value));
    }
    seen.add(value);
  });
  return errors;
}

const steps = fieldPath('spec', 'steps');

/**
 * RunnerClass names, cluster-wide class names as ClusterRole names are, follow kube's
 * path-segment rule (`gpu:large`, `Team A`) rather than the DNS-subdomain rule, up to
 * the 253 characters of any object name.
 */
export const validateRunnerClassName: NameValidation = (name, prefix) => [
  ...(name.length > 253 ? ['must be no more than 253 characters'] : []),
  ...validatePathSegmentName(name, prefix),
];

/** Validates a v1 Pipeline. */
export function validatePipeline(object: KubeObject): FieldError[] {
  const spec = isPlainObject(object.spec) ? object.spec : {};
  let errors: FieldError[] = [];
  const runnerClassName = spec.runnerClassName;
  if (typeof runnerClassName === 'string' && runnerClassName !== '') {
    for (const problem of validateRunnerClassName(runnerClassName, false)) {
      errors.push(invalid(fieldPath('spec', 'runnerClassName'), runnerClassName, problem));
    }
  }
  // A body may hold hundreds of thousands of duplicates: concatenate, never spread them into arguments.
  errors = errors.concat(duplicateNames(spec.steps, steps, 'name'));
  if (Array.isArray(spec.steps)) {
    spec.steps.forEach((step, i) => {
      if (isPlainObject(step)) errors = errors.concat(duplicateNames(step.env, steps.index(i).child('env'), 'name'));
    });
  }
  const conditions = isPlainObject(object.status) ? object.status.conditions : undefined;
  return errors.concat(duplicateNames(conditions, fieldPath('status', 'conditions'), 'type'));
}

/** Validates a v1 RunnerClass. */
export function validateRunnerClass(_object: KubeObject): FieldError[] {
  return [];
}
