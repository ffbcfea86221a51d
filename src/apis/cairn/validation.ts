/**
 * Kind-specific validation of cairn.dev objects beyond their schemas: rules a
 * structural schema cannot say (unique step names, label-safe references).
 */
import type { FieldError } from '../../machinery/errors.js';
import { validateDns1123Subdomain } from '../../machinery/names.js';
import { isPlainObject, type KubeObject } from '../../machinery/object.js';

function duplicateNames(items: unknown, path: string, key: string): FieldError[] {
  if (!Array.isArray(items)) return [];
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  items.forEach((item, i) => {
    const value = isPlainObject(item) ? item[key] : undefined;
    if (typeof value !== 'string') return;
    if (seen.has(value)) {
      errors.push({ field: `${path}[${i}].${key}`, reason: 'FieldValueDuplicate', message: `Duplicate value: "${value}"` });
    }
    seen.add(value);
  });
  return errors;
}

/** Validates a v1 Pipeline. */
export function validatePipeline(object: KubeObject): FieldError[] {
  const spec = isPlainObject(object.spec) ? object.spec : {};
  let errors: FieldError[] = [];
  const runnerClassName = spec.runnerClassName;
  if (typeof runnerClassName === 'string' && runnerClassName !== '') {
    for (const problem of validateDns1123Subdomain(runnerClassName)) {
      errors.push({ field: 'spec.runnerClassName', reason: 'FieldValueInvalid', message: `Invalid value: "${runnerClassName}": ${problem}` });
    }
  }
  // A body may hold hundreds of thousands of duplicates: concatenate, never spread them into arguments.
  errors = errors.concat(duplicateNames(spec.steps, 'spec.steps', 'name'));
  if (Array.isArray(spec.steps)) {
    spec.steps.forEach((step, i) => {
      if (isPlainObject(step)) errors = errors.concat(duplicateNames(step.env, `spec.steps[${i}].env`, 'name'));
    });
  }
  const conditions = isPlainObject(object.status) ? object.status.conditions : undefined;
  return errors.concat(duplicateNames(conditions, 'status.conditions', 'type'));
}

/** Validates a v1 RunnerClass. */
export function validateRunnerClass(_object: KubeObject): FieldError[] {
  return [];
}
