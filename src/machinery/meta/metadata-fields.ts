/**
 * The selectable fields Cairn adds to every kind, beyond kube's `metadata.name` and
 * `metadata.namespace`: each holds a list, so that a client (the garbage collector
 * first) finds the objects that name an owner, or carry a finalizer, with one indexed
 * query instead of reading every object. A Cairn extension: kube-apiserver rejects
 * these field selectors.
 *
 * - `metadata.ownerReferences.uid=U`: the objects with an ownerReference whose uid is U;
 *   `!=U` the others; `metadata.ownerReferences.uid!=` the objects with any owner.
 * - `metadata.finalizers=F`: the objects carrying finalizer F; `!=F` the others.
 *
 * An object with no owners (no finalizers) has no such field, which compares as `''`
 * as any absent field does.
 */
import type { Fields } from '../selectors/field-selector.js';
import type { KubeObject } from './object.js';

/** The uids of an object's ownerReferences. */
export const ownerUidsField = 'metadata.ownerReferences.uid';
/** An object's finalizers. */
export const finalizersField = 'metadata.finalizers';

/** The list-valued selectable fields, which every kind has. */
export const listFields: ReadonlySet<string> = new Set([ownerUidsField, finalizersField]);

/**
 * The list fields of `object`, each left out when its list is empty.
 *
 * @example metadataFields({ metadata: { ownerReferences: [{ uid: 'u1', … }] } }) // { 'metadata.ownerReferences.uid': ['u1'] }
 */
export function metadataFields(object: KubeObject): Fields {
  const fields: Record<string, readonly string[]> = {};
  const uids = (object.metadata?.ownerReferences ?? []).map((ref) => ref.uid);
  if (uids.length > 0) fields[ownerUidsField] = uids;
  const finalizers = object.metadata?.finalizers ?? [];
  if (finalizers.length > 0) fields[finalizersField] = [...finalizers];
  return fields;
}
