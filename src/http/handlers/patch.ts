/** PATCH of one object, its status or its Scale: JSON Patch, merge patch, strategic merge patch or server-side apply. */
import { badRequest, invalid, unsupportedMediaType, type FieldError } from '../../machinery/errors.js';
import { goFormat, sortedGoJson } from '../../machinery/go-text.js';
import { deepCopy, isPlainObject, type KubeObject } from '../../machinery/meta/object.js';
import { applyPatchType, patchTypes, type PatchType } from '../../machinery/patch/patch.js';
import { logRequestBody } from '../filters/audit-context.js';
import { decodeBody, mediaType } from '../request/decode-body.js';
import { addWarnings } from './respond.js';
import { managedFieldsUpdate, mutatingAdmission, updatedObjectInfo, validations } from './admission.js';
import { checkObjectKey } from './check-object-key.js';
import { readWrite } from './decode-object.js';
import type { Updater } from '../../registry/endpoint-rest.js';
import type { PatchedValue, RequestScope } from '../../registry/request-scope.js';
import { patched } from './patcher.js';
import { keyOf, respondObject, writeOrigin, type ResourceContext } from './resource-context.js';
import { FieldPath, fieldPath, forbidden, invalid as invalidField, required } from '../../machinery/field-errors.js';

function forceParam(rc: ResourceContext): boolean | undefined {
  const value = rc.query.get('force');
  return value === null ? undefined : value === 'true' || value === '1';
}

/** What kube's ValidatePatchOptions checks first, by patch type: apply needs a field manager; only apply takes `force`. */
function patchTypeErrors(rc: ResourceContext, apply: boolean): FieldError[] {
  const errors: FieldError[] = [];
  if (apply && !rc.query.get('fieldManager')) errors.push(required(fieldPath('fieldManager'), 'is required for apply patch'));
  if (!apply && forceParam(rc) !== undefined) errors.push(forbidden(fieldPath('force'), 'may not be specified for non-apply patch'));
  return errors;
}

/**
 * Answers `patch`. The patch is applied to the current object in the request's version
 * with no lock held (again, should another write win the race), decoded like a body
 * (pruned, defaulted, converted to the hub), admitted, and stored; an apply to the main
 * resource may create (201).
 */
export async function patchHandler(rc: ResourceContext, rest: Updater): Promise<void> {
  const contentType = mediaType(rc.ctx.get('Content-Type'));
  const accepted = rc.scope.patchContentTypes;
  if (!accepted.includes(contentType)) throw unsupportedMediaType(accepted);
  const apply = contentType === applyPatchType;
  // An applied configuration is YAML, of which JSON is a subset; the other patch types are JSON documents.
  const yaml = apply ? 'application/yaml' : 'application/json';
  const { value, options, manager } = await readWrite(rc, (raw) => decodeBody(raw, yaml, [yaml]), 'PatchOptions', patchTypeErrors(rc, apply));
  logRequestBody(rc.ctx, value);
  const scope: RequestScope = rc.scope;
  let warnings: readonly string[] = [];
  const decoded = (object: unknown, patched?: PatchedValue): KubeObject => {
    const result = scope.decode(object, options.fieldValidation, options.duplicateFields ?? [], patched);
    warnings = result.warnings;
    return result.object;
  };
  const key = keyOf(rc);
  // As kube's patcher: the patched object's namespace and name are the URL's, or the patch is a 400 (before validation's 422).
  const checked = (object: KubeObject): KubeObject => checkObjectKey(object, key.namespace, key.name);
  const admission = mutatingAdmission(rc, options.dryRun);
  let objInfo: (live: KubeObject | undefined) => Promise<KubeObject>;
  if (apply) {
    if (!isPlainObject(value)) throw invalid('Patch', 'meta.k8s.io', '', [invalidField(FieldPath.root, value, 'the apply patch must be an object')]);
    scope.fieldManager.checkApplied(value);
    const sentName = value.metadata?.name;
    if (sentName && sentName !== rc.name) throw badRequest(`the name of the object (${sentName}) does not match the name on the URL (${rc.name})`);
    const applied: KubeObject = { ...value, metadata: { ...value.metadata, name: rc.name } };
    const fieldManager = rc.query.get('fieldManager')!;
    const force = forceParam(rc) ?? false;
    // The apply's merge is the field manager's step: it records the Apply entry, then admission runs.
    objInfo = updatedObjectInfo((live) => checked(decoded(scope.fieldManager.apply(live, applied, fieldManager, force))), admission);
  } else {
    const type = (Object.keys(patchTypes) as PatchType[]).find((t) => patchTypes[t] === contentType)!;
    const patchedObject = (live: KubeObject | undefined): KubeObject => {
      // The patched object shares the patch's values, which decoding would change for the next attempt: it gets a copy.
      // A patch is written against the request's version: it applies to the live hub object converted there, as kube's patcher.
      const object = deepCopy(patched(scope.fromHub(live!), type, value, scope.schema, scope.resolve, options.fieldValidation));
      // Quoted before decoding changes it: kube's 422 quotes the patched object (a strategic merge patch, the patch).
      const quoted = type === 'strategic' ? goFormat(value) : sortedGoJson(object);
      return checked(decoded(object, { quoted }));
    };
    // As kube's patchers: the patched object is decoded and recorded by the field manager, then admitted.
    objInfo = updatedObjectInfo(patchedObject, managedFieldsUpdate(rc, manager), admission);
  }
  const { createValidation, updateValidation } = validations(rc, options.dryRun);
  // The apply's result carries its own managedFields; every other patch is recorded as an Update.
  const { object, created } = await rest.update(key, objInfo, createValidation, updateValidation, apply && scope.subresource === undefined, {
    dryRun: options.dryRun,
    manager: apply ? undefined : manager,
    origin: apply ? writeOrigin(rc, 'apply', rc.query.get('fieldManager')!) : writeOrigin(rc, 'patch', manager),
  });
  addWarnings(rc.ctx, warnings);
  respondObject(rc, created ? 201 : 200, object);
}
