/**
 * The format of strategic merge patches: the directive keys, and the errors a patch
 * that breaks the format gets, worded as k8s.io/apimachinery's mergepatch words them.
 * kube-apiserver answers malformed directives with 400 and the other unappliable
 * patches with a 500, which bad input must never get here, so those are 422.
 */
import { badRequest, unprocessable } from '../errors.js';
import { isPlainObject } from '../meta/object.js';
import type { StatusError } from '../status.js';

/** A JSON object inside a patch or the object it patches. */
export type JsonMap = Record<string, unknown>;

/** The key of `$patch: replace | delete | merge` in maps and list items. */
export const directive = '$patch';
/** The key listing the fields a map keeps. */
export const retainKeysDirective = '$retainKeys';
/** The prefix of `$setElementOrder/<list>`, the order a merged list ends in. */
export const setElementOrderPrefix = '$setElementOrder';
/** The prefix of `$deleteFromPrimitiveList/<list>`, the values a list loses. */
export const deleteFromPrimitiveListPrefix = '$deleteFromPrimitiveList';

/** The Go type of JSON objects, as kube's messages name it. */
export const mapType = 'map[string]interface {}';

/** The messages of the malformed directives kube answers with 400. */
export const malformed = {
  primitiveList: 'invalid patch format of primitive list',
  retainKeys: 'invalid patch format of retainKeys',
  setElementOrder: 'invalid patch format of setElementOrder list',
} as const;

/** 400 for a patch body that is not a JSON object. */
export function notAnObject(patch: unknown): StatusError {
  const type = Array.isArray(patch) ? 'array' : typeof patch === 'boolean' ? 'bool' : typeof patch;
  return badRequest(`json: cannot unmarshal ${type} into Go value of type ${mapType}`);
}

/** 422 for a patch that cannot be applied to the object. */

/** 422 for a `$patch` value kube does not know. */
export function badPatchType(map: JsonMap): StatusError {
  return unprocessable(`unknown patch type: ${goValue(map[directive])} in map: ${goValue(map)}`);
}

/** 422 for a value of the wrong type where `expected`'s type belongs. */
export function badArgType(expected: unknown, actual: unknown): StatusError {
  return unprocessable(`expected a ${goType(expected)}, but received a ${goType(actual)}`);
}

/** `value` when it is a map; 422 otherwise. */
export function asMap(value: unknown): JsonMap {
  if (!isPlainObject(value)) throw badArgType({}, value);
  return value;
}

/** The value of the merge key of a list item; 422 when the item lacks it. */
export function keyOf(item: JsonMap, mergeKey: string): unknown {
  if (!Object.hasOwn(item, mergeKey)) throw unprocessable(`map: ${goValue(item)} does not contain declared merge key: ${mergeKey}`);
  return item[mergeKey];
}

/** The Go type a JSON value decodes to in kube-apiserver, which compares list items by it. */
export function goType(value: unknown): string {
  if (value === null) return '<nil>';
  if (Array.isArray(value)) return '[]interface {}';
  if (isPlainObject(value)) return mapType;
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return typeof value === 'boolean' ? 'bool' : 'string';
}

/** A JSON value as Go's `%v` prints it, so messages read as kube's do. */
export function goValue(value: unknown): string {
  if (value === null) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goValue).join(' ')}]`;
  if (!isPlainObject(value))
    return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? value.toString() : JSON.stringify(value);
  const fields = Object.keys(value)
    .sort()
    .map((key) => `${key}:${goValue(value[key])}`);
  return `map[${fields.join(' ')}]`;
}
