/** PATCH of one object: JSON Patch, merge patch, strategic merge patch or server-side apply. */
import { invalid, unsupportedMediaType, type FieldError } from '../../machinery/errors.js';
import { isPlainObject, type KubeObject } from '../../machinery/object.js';
import { applyPatchType, patchContentTypes, patchTypes, type PatchType } from '../../machinery/patch.js';
import { decodeBody, mediaType } from '../negotiation.js';
import { addWarnings } from '../respond.js';
import { readWrite } from './decode-object.js';
import { keyOf, respondObject, subresourceOf, type ResourceContext } from './resource-context.js';

function forceParam(rc: ResourceContext): boolean | undefined {
  const value = rc.query.get('force');
  return value === null ? undefined : value === 'true' || value === '1';
}

/** kube's ValidatePatchOptions: apply needs a field manager; only apply takes `force`. 422 on `PatchOptions.meta.k8s.io`. */
function checkPatchOptions(rc: ResourceContext, apply: boolean): void {
  const errors: FieldError[] = [];
  if (apply && !rc.query.get('fieldManager')) errors.push({ field: 'fieldManager', reason: 'FieldValueRequired', message: 'Required value: is required for apply patch' });
  if (!apply && forceParam(rc) !== undefined) errors.push({ field: 'force', reason: 'FieldValueForbidden', message: 'Forbidden: may not be specified for non-apply patch' });
  if (errors.length) throw invalid('PatchOptions', 'meta.k8s.io', '', errors);
}

/** Answers `patch`: the patch applies to the current object inside the update's lock; an apply may create it (201). */
export async function patchHandler(rc: ResourceContext): Promise<void> {
  const contentType = mediaType(rc.ctx.get('Content-Type'));
  // A Scale takes patches, not applied configurations.
  const accepted = rc.request.subresource === 'scale' ? Object.values(patchTypes) : patchContentTypes;
  if (!accepted.includes(contentType)) throw unsupportedMediaType(contentType, accepted);
  const apply = contentType === applyPatchType;
  checkPatchOptions(rc, apply);
  const key = keyOf(rc);
  if (apply) {
    // An applied configuration is YAML, of which JSON is a subset.
    const { value, options } = await readWrite(rc, (raw) => decodeBody(raw, 'application/yaml', ['application/yaml']));
    if (!isPlainObject(value)) throw invalid('Patch', 'meta.k8s.io', '', [{ field: '', reason: 'FieldValueInvalid', message: 'Invalid value: the apply patch must be an object' }]);
    const { object, warnings, created } = await rc.store.apply(key, value as KubeObject, { ...options, fieldManager: rc.query.get('fieldManager')!, force: forceParam(rc) ?? false }, subresourceOf(rc));
    addWarnings(rc.ctx, warnings);
    return respondObject(rc, created ? 201 : 200, object);
  }
  const type = (Object.keys(patchTypes) as PatchType[]).find((t) => patchTypes[t] === contentType)!;
  // The other patch types are JSON documents.
  const { value: patch, options } = await readWrite(rc, (raw) => decodeBody(raw, 'application/json', ['application/json']));
  const { object, warnings } =
    rc.request.subresource === 'scale'
      ? await rc.store.patchScale(key, { type, patch }, options)
      : await rc.store.patch(key, { type, patch }, options, subresourceOf(rc));
  addWarnings(rc.ctx, warnings);
  respondObject(rc, 200, object);
}
