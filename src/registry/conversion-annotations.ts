/**
 * The annotations in which a version's conversion carries the fields that version
 * cannot express. They are the conversion's: an object of the storage version never
 * holds one, so a client cannot plant values that the next conversion would trust
 * or strip — and an annotation that conversion back could not read (malformed) is
 * refused instead of stored.
 */
import type { ApiResource } from '../apis/api-resource.js';
import type { FieldError } from '../machinery/errors.js';
import { fieldPath, invalid } from '../machinery/field-errors.js';
import type { KubeObject } from '../machinery/meta/object.js';

/** The 422 causes of conversion annotations on `object`, an object of the storage version. */
export function conversionAnnotationErrors(resource: ApiResource, object: KubeObject): FieldError[] {
  const annotations = object.metadata?.annotations;
  if (!annotations) return [];
  return resource.versions.flatMap(({ version, conversionAnnotations = [] }) =>
    conversionAnnotations
      .filter((key) => annotations[key] !== undefined)
      .map((key) =>
        invalid(
          fieldPath('metadata', 'annotations').key(key),
          annotations[key],
          `reserved for the fields ${resource.group}/${version} cannot express; only a value its own conversion wrote is accepted, in ${resource.group}/${version}`,
        ),
      ),
  );
}
