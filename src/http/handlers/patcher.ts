/**
 * The patcher, as kube's handlers/patch.go: the object a JSON, merge or strategic
 * merge patch makes of the current object, in the request's version and against its
 * schema. A patch that cannot be decoded is a 400, one that cannot apply a 422.
 */
import type { JsonSchema, SchemaResolver } from '../../machinery/json-schema.js';
import type { KubeObject } from '../../machinery/meta/object.js';
import { applyJsonPatch, applyMergePatch, decodeJsonPatchOperations, type PatchType } from '../../machinery/patch/patch.js';
import type { FieldValidation } from '../../registry/request-options.js';
import { applyStrategicMergePatch } from '../../machinery/patch/strategic-merge-patch.js';

/**
 * `current` patched with `patch` of `type`; strategic merge follows the patch metadata of
 * `schema`. A JSON Patch is first decoded as kube decodes it under `fieldValidation` Strict
 * and Warn (its operations as typed `jsonPatchOp`s), not under Ignore.
 */
export function patched(
  current: KubeObject,
  type: PatchType,
  patch: unknown,
  schema: JsonSchema,
  resolve: SchemaResolver,
  fieldValidation: FieldValidation,
): KubeObject {
  switch (type) {
    case 'json':
      if (fieldValidation !== 'Ignore') decodeJsonPatchOperations(patch);
      return applyJsonPatch(current, patch);
    case 'merge':
      return applyMergePatch(current, patch);
    case 'strategic':
      return applyStrategicMergePatch(current, patch, schema, resolve);
  }
}
