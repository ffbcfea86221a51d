/**
 * The strategy cairn.dev's kinds share: what create and update do to an object
 * before it is validated and stored.
 */
import type { Strategy } from '../api-resource.js';
import type { FieldError } from '../../machinery/errors.js';
import { jsonEqual, valueAt, type KubeObject } from '../../machinery/meta/object.js';

/** A selectable field's value: a dotted path's string; '' when absent, as kube's field sets read it. */
function stringAt(object: KubeObject, path: string): string {
  const value = valueAt(object, path);
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** What differs between the kinds' strategies. */
export interface KindStrategyOptions {
  readonly validate: (object: KubeObject) => FieldError[];
  readonly namespaced: boolean;
  readonly selectableFields: readonly string[];
  /** The apiVersions the kind is served in (`cairn.dev/v1`), each resetting `.status` on the main resource. */
  readonly apiVersions: readonly string[];
}

/**
 * The strategy of a kind with a spec and a status subresource, as kube's custom
 * resource strategy: create drops `.status`, updates keep the stored `.status` (it is
 * written through `/status`), and generation follows spec changes.
 */
export function kindStrategy(options: KindStrategyOptions): Strategy {
  return {
    // Shallow copies: only top-level fields change here, and nothing below them is written to after.
    prepareForCreate(object) {
      const copy = { ...object };
      delete copy.status;
      return copy;
    },
    prepareForUpdate(object, old) {
      const copy = { ...object };
      if (old.status === undefined) delete copy.status;
      else copy.status = old.status;
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
    resetFields: () => Object.fromEntries(options.apiVersions.map((apiVersion) => [apiVersion, ['status']])),
  };
}
