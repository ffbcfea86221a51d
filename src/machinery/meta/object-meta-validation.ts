/**
 * Validation of ObjectMeta as k8s.io/apimachinery/pkg/api/validation does it:
 * names, namespaces, labels and annotations.
 */
import type { FieldError } from '../errors.js';
import { fieldPath, forbidden, invalid, required, tooLong } from '../field-errors.js';
import { foregroundFinalizer, orphanFinalizer } from './finalizers.js';
import { formatGroupVersionKind, groupVersionKindOf } from './group-version-kind.js';
import { nameIsDnsSubdomain, validateDns1123Label, type NameValidation } from './names.js';
import type { ObjectMeta } from './object.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { labelValueErrors, qualifiedNameErrors } from './qualified-name.js';

const totalAnnotationSizeLimit = 256 * 1024;

const metadata = fieldPath('metadata');
const finalizersPath = metadata.child('finalizers');

function finalizerErrors(finalizers: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const finalizer of finalizers) {
    for (const p of qualifiedNameErrors(finalizer)) errors.push(invalid(finalizersPath, finalizer, p));
  }
  if (finalizers.includes(orphanFinalizer) && finalizers.includes(foregroundFinalizer)) {
    errors.push(invalid(finalizersPath, finalizers, `finalizer ${orphanFinalizer} and ${foregroundFinalizer} cannot be both set`));
  }
  return errors;
}

/** Owners kube refuses (its `BannedOwners`): an Event. */
const bannedOwners: readonly string[] = ['/v1, Kind=Event'];

/**
 * kube's ValidateOwnerReferences: each reference names a version, a kind, a name and a uid,
 * and one at most is the controller. As kube, against the list's path, not the item's.
 */
function ownerReferenceErrors(references: readonly OwnerReference[]): FieldError[] {
  const errors: FieldError[] = [];
  const field = metadata.child('ownerReferences');
  let controller: string | undefined;
  for (const ref of references) {
    // schema.FromAPIVersionAndKind: the kind is kept when the apiVersion does not parse.
    const type = { ...groupVersionKindOf({ apiVersion: ref.apiVersion }), kind: ref.kind ?? '' };
    if (!type.version) errors.push(invalid(field.child('apiVersion'), ref.apiVersion ?? '', 'version must not be empty'));
    if (!type.kind) errors.push(invalid(field.child('kind'), ref.kind ?? '', 'must not be empty'));
    if (!ref.name) errors.push(invalid(field.child('name'), ref.name ?? '', 'must not be empty'));
    if (!ref.uid) errors.push(invalid(field.child('uid'), ref.uid ?? '', 'must not be empty'));
    const printed = formatGroupVersionKind(type);
    if (bannedOwners.includes(printed)) errors.push(invalid(field, inGoOrder(ref), `${printed} is disallowed from being an owner`));
    if (ref.controller === true) {
      const current = `${ref.kind}/${ref.name}`;
      if (controller === undefined) controller = current;
      else {
        errors.push(
          invalid(field, references, `Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${current}`),
        );
      }
    }
  }
  return errors;
}

/** A reference as Go's json.Marshal writes an OwnerReference, in its fields' order, which kube's message shows. */
function inGoOrder(ref: OwnerReference): OwnerReference {
  const { apiVersion, kind, name, uid, controller, blockOwnerDeletion } = ref;
  return {
    apiVersion: apiVersion ?? '',
    kind: kind ?? '',
    name: name ?? '',
    uid: uid ?? '',
    ...(controller == null ? {} : { controller }),
    ...(blockOwnerDeletion == null ? {} : { blockOwnerDeletion }),
  };
}

/**
 * What an update may not change in ObjectMeta: name, namespace and uid (left out,
 * they are carried over), and no new finalizers once the object is being deleted.
 * A changed creationTimestamp is no error: as kube's `rest.BeforeUpdate`, the store
 * ignores it, so a client that re-encodes the time it read (client-node's `Date`
 * adds milliseconds) can still replace the object.
 */
export function validateObjectMetaUpdate(meta: ObjectMeta, old: ObjectMeta): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of ['name', 'namespace', 'uid'] as const) {
    const value = meta[field];
    if (value !== undefined && value !== '' && value !== old[field]) errors.push(invalid(metadata.child(field), value, 'field is immutable'));
  }
  if (old.deletionTimestamp) {
    const added = (meta.finalizers ?? []).filter((f) => !(old.finalizers ?? []).includes(f));
    if (added.length) {
      errors.push(forbidden(finalizersPath, `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`));
    }
  }
  return errors;
}

/**
 * Validates ObjectMeta of a new or updated object; `namespaced` says whether a namespace
 * is required, `validateName` is the kind's rule for names (DNS subdomains unless the kind says otherwise).
 */
export function validateObjectMeta(meta: ObjectMeta, namespaced: boolean, validateName: NameValidation = nameIsDnsSubdomain): FieldError[] {
  const errors: FieldError[] = [];
  if (meta.generateName) {
    for (const p of validateName(meta.generateName, true)) errors.push(invalid(metadata.child('generateName'), meta.generateName, p));
  }
  if (!meta.name) {
    errors.push(required(metadata.child('name'), 'name or generateName is required'));
  } else {
    for (const p of validateName(meta.name, false)) errors.push(invalid(metadata.child('name'), meta.name, p));
  }
  if (namespaced) {
    if (!meta.namespace) errors.push(required(metadata.child('namespace')));
    else for (const p of validateDns1123Label(meta.namespace)) errors.push(invalid(metadata.child('namespace'), meta.namespace, p));
  } else if (meta.namespace) {
    errors.push(forbidden(metadata.child('namespace'), 'not allowed on this type'));
  }
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    for (const p of qualifiedNameErrors(key)) errors.push(invalid(metadata.child('labels'), key, p));
    for (const p of labelValueErrors(value)) errors.push(invalid(metadata.child('labels'), value, p));
  }
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(meta.annotations ?? {})) {
    for (const p of qualifiedNameErrors(key.toLowerCase())) errors.push(invalid(metadata.child('annotations'), key, p));
    annotationBytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  errors.push(...finalizerErrors(meta.finalizers ?? []), ...ownerReferenceErrors(meta.ownerReferences ?? []));
  if (annotationBytes > totalAnnotationSizeLimit) {
    errors.push(tooLong(metadata.child('annotations'), totalAnnotationSizeLimit));
  }
  return errors;
}
