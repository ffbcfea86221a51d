/**
 * The strategies of cairn.dev's kinds: what create and update do to an object
 * before it is validated and stored.
 */
import type { Strategy } from '../api-resource.js';
import type { FieldError } from '../../machinery/errors.js';
import { deepCopy, isPlainObject, jsonEqual, type KubeObject } from '../../machinery/object.js';

/** Reads a dotted path of string fields (`spec.runnerClassName`); '' when absent. */
export function stringAt(object: KubeObject, path: string): string {
  let value: unknown = object;
  for (const part of path.split('.')) value = isPlainObject(value) ? value[part] : undefined;
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

/** What differs between the kinds' strategies. */
export interface KindStrategyOptions {
  readonly defaults: (object: KubeObject) => void;
  readonly validate: (object: KubeObject) => FieldError[];
  readonly namespaced: boolean;
  readonly selectableFields: readonly string[];
}

/**
 * A strategy for a kind with a spec and a status: generation follows spec changes;
 * defaults apply on create and update.
 */
export function kindStrategy(options: KindStrategyOptions): Strategy {
  return {
    prepareForCreate(object) {
      const copy = deepCopy(object);
      options.defaults(copy);
      return copy;
    },
    prepareForUpdate(object) {
      const copy = deepCopy(object);
      options.defaults(copy);
      return copy;
    },
    validate: options.validate,
    validateUpdate: (object) => options.validate(object),
    generationChanged: (object, old) => !jsonEqual(object.spec, old.spec),
    selectableFields(object) {
      const fields: Record<string, string> = { 'metadata.name': stringAt(object, 'metadata.name') };
      if (options.namespaced) fields['metadata.namespace'] = stringAt(object, 'metadata.namespace');
      for (const field of options.selectableFields) fields[field] = stringAt(object, field);
      return fields;
    },
  };
}
