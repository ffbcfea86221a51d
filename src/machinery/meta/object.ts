/**
 * The shape every Kubernetes object shares, and small helpers over it.
 */
import type { ObjectMeta as KubeObjectMeta } from 'kubernetes-types/meta/v1.js';

/** `metav1.ObjectMeta` as Cairn stores it. */
export type ObjectMeta = KubeObjectMeta;

/** Any object with apiVersion, kind and metadata; the rest is the kind's own. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

/** An object that has been through the registry: metadata is always set. */
export interface StoredObject extends KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta & { name: string; uid: string; resourceVersion: string };
}

/** Tells whether a value is a JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at a dotted path of fields (`spec.runnerClassName`); undefined where any step is missing. */
export function valueAt(object: unknown, path: string): unknown {
  let value = object;
  for (const part of path.split('.')) value = isPlainObject(value) ? value[part] : undefined;
  return value;
}

/** A deep copy (structured clone: JSON values copy exactly). */
export function deepCopy<T>(value: T): T {
  return structuredClone(value);
}

/** Deep equality of JSON values; key order does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Freezes a JSON value and everything in it; objects handed out of caches are frozen. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

const omittedWhenEmpty = ['labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields'] as const;

/** ObjectMeta as kube serializes it: its maps and lists are left out when empty. */
export function compactObjectMeta(meta: ObjectMeta): ObjectMeta {
  const compact: Record<string, unknown> = { ...meta };
  for (const field of omittedWhenEmpty) {
    const value = compact[field];
    if (value !== undefined && (Array.isArray(value) ? value.length === 0 : isPlainObject(value) && Object.keys(value).length === 0)) {
      delete compact[field];
    }
  }
  return compact;
}

/** The metadata only the server sets, which kube's create handler wipes from the body before anything looks at it. */
const systemFields = ['creationTimestamp', 'uid', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink'] as const;

/**
 * `object` without the metadata only the server sets, as kube's `WipeObjectMetaSystemFields`:
 * a create's body is wiped before the field manager records it, so a client never owns them.
 */
export function withoutSystemFields(object: KubeObject): KubeObject {
  if (!object.metadata || !systemFields.some((field) => field in object.metadata!)) return object;
  const metadata: Record<string, unknown> = { ...object.metadata };
  for (const field of systemFields) delete metadata[field];
  return { ...object, metadata };
}
