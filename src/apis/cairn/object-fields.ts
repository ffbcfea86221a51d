/**
 * Moving fields between versions without reordering an object's keys, so that a
 * conversion and its reverse give back the original bytes.
 */
import type { ResourceVersion } from '../api-resource.js';
import { deepCopy, type KubeObject } from '../../machinery/meta/object.js';
import { groupName, storageVersion } from './group-name.js';

/** A copy of `object` with each key of `renames` renamed in place (same position). */
export function renamed(object: Readonly<Record<string, unknown>>, renames: Readonly<Record<string, string>>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) copy[renames[key] ?? key] = value;
  return copy;
}

/** A copy of `object` with `key` set to `value` where `order` (the schema's field order) puts it among the keys present. */
export function inserted(object: Readonly<Record<string, unknown>>, key: string, value: unknown, order: readonly string[]): Record<string, unknown> {
  const rank = order.indexOf(key);
  const copy: Record<string, unknown> = {};
  let placed = false;
  for (const [k, v] of Object.entries(object)) {
    if (k === key) continue;
    if (!placed && order.indexOf(k) > rank) {
      copy[key] = value;
      placed = true;
    }
    copy[k] = v;
  }
  if (!placed) copy[key] = value;
  return copy;
}

/** A copy of `object` without `keys`. */
export function without(object: Readonly<Record<string, unknown>>, ...keys: readonly string[]): Record<string, unknown> {
  const copy = { ...object };
  for (const key of keys) delete copy[key];
  return copy;
}

/** ObjectMeta's fields in the order kube serializes them. */
export const objectMetaOrder = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
] as const;

/** A deep copy of `object` in `apiVersion` (its key kept in place): the conversion of a kind whose fields a version does not change. */
export function retagged(object: KubeObject, apiVersion: string): KubeObject {
  return { ...deepCopy(object), apiVersion };
}

/** The conversion of a kind whose fields `version` does not change: only the apiVersion. */
export function sameFields(version: string): Required<Pick<ResourceVersion, 'toStorage' | 'fromStorage'>> {
  return {
    toStorage: (object) => retagged(object, `${groupName}/${storageVersion}`),
    fromStorage: (object) => retagged(object, `${groupName}/${version}`),
  };
}
