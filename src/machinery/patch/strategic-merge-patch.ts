/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) as kube-apiserver
 * applies it: k8s.io/apimachinery/pkg/util/strategicpatch `StrategicMergeMapPatch`, with
 * the patch metadata read from the kind's OpenAPI v3 schema (patch-schema.ts) instead of
 * Go struct tags. Maps merge, `null` deletes, lists are replaced unless their field has
 * strategy `merge`, and the directives `$patch` (`replace`, `delete`),
 * `$setElementOrder/<list>`, `$deleteFromPrimitiveList/<list>` and `$retainKeys` apply.
 */
import { badRequest, unprocessable } from '../errors.js';
import type { JsonSchema, SchemaResolver } from '../json-schema.js';
import { deepCopy, isPlainObject } from '../meta/object.js';
import { PatchSchema, type FieldPatchMeta } from './patch-schema.js';
import {
  badArgType,
  badPatchType,
  deleteFromPrimitiveListPrefix,
  directive,
  goType,
  goValue,
  keyOf,
  malformed,
  mapType,
  notAnObject,
  retainKeysDirective,
  setElementOrderPrefix,
  type JsonMap,
} from './strategic-merge-format.js';
import { checkPatchOrder, orderMerged } from './strategic-merge-order.js';

/**
 * Applies a strategic merge patch to a copy of `target`, an object `schema` describes.
 *
 * @example
 * // what `kubectl apply` sends after changing the image of step `load`
 * applyStrategicMergePatch(pipeline, {
 *   spec: {
 *     '$setElementOrder/steps': [{ name: 'fetch' }, { name: 'load' }],
 *     steps: [{ name: 'load', image: 'alpine:3.21' }],
 *   },
 * }, pipelineSchema, resolve);
 */
export function applyStrategicMergePatch<T extends JsonMap>(target: T, patch: unknown, schema: JsonSchema, resolve: SchemaResolver): T {
  if (patch !== null && !isPlainObject(patch)) throw notAnObject(patch);
  // The merge shares unchanged parts with its inputs; the copy hands none of them out.
  return deepCopy(mergeMap(target, patch ?? {}, PatchSchema.of(schema, resolve))) as T;
}

/** Merges `patch` into the map `original` (kube's mergeMap). */
function mergeMap(original: JsonMap, patch: JsonMap, schema: PatchSchema): JsonMap {
  if (Object.hasOwn(patch, directive)) return mapDirective(patch);
  const merged = retainedFields(original, patch);
  // Lists with a $setElementOrder are merged with their order, before the other fields.
  const ordered = new Set<string>();
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(setElementOrderPrefix)) continue;
    const field = directiveField(key, setElementOrderPrefix, malformed.setElementOrder);
    const list = orderedList(own(merged, field), own(patch, field), order, schema.field(field), field);
    if (list !== undefined) merged[field] = list;
    ordered.add(field);
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key === retainKeysDirective || key.startsWith(setElementOrderPrefix) || ordered.has(key)) continue;
    const deleteList = key.startsWith(deleteFromPrimitiveListPrefix);
    const field = deleteList ? directiveField(key, deleteFromPrimitiveListPrefix, malformed.primitiveList) : key;
    const next = mergedField(own(merged, field), value, deleteList, schema.field(field), field);
    if (next === undefined) delete merged[field];
    else merged[field] = next;
  }
  return merged;
}

/** A map's own field; undefined when absent. */
function own(map: JsonMap, key: string): unknown {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

/** A map patch carrying `$patch`: `replace` stands for itself, `delete` empties the map. */
function mapDirective(patch: JsonMap): JsonMap {
  switch (patch[directive]) {
    case 'replace':
      return Object.fromEntries(Object.entries(patch).filter(([key]) => key !== directive));
    case 'delete':
      return {};
    default:
      throw badPatchType(patch);
  }
}

/** A copy of `original` without the fields a `$retainKeys` directive leaves out. */
function retainedFields(original: JsonMap, patch: JsonMap): JsonMap {
  if (!Object.hasOwn(patch, retainKeysDirective)) return { ...original };
  const retained = patch[retainKeysDirective];
  if (!Array.isArray(retained)) throw badRequest(malformed.retainKeys);
  // Every field the patch sets must be retained, or the patch contradicts itself.
  const unlisted = Object.entries(patch).some(
    ([key, value]) =>
      value !== null &&
      key !== retainKeysDirective &&
      !key.startsWith(deleteFromPrimitiveListPrefix) &&
      !key.startsWith(setElementOrderPrefix) &&
      !retained.includes(key),
  );
  if (unlisted) throw badRequest(malformed.retainKeys);
  return Object.fromEntries(Object.entries(original).filter(([key]) => retained.includes(key)));
}

/** The field a `<prefix>/<field>` directive key names. */
function directiveField(key: string, prefix: string, message: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) throw badRequest(message);
  return key.slice(slash + 1);
}

/** A field's value once the patch's `value` is merged into `current`; undefined stands for an absent field. */
function mergedField(current: unknown, value: unknown, deleteList: boolean, meta: FieldPatchMeta, field: string): unknown {
  if (value === null) return undefined;
  if (current === undefined || goType(current) !== goType(value)) {
    // A deletion list deletes nothing from what is not a list like it.
    return deleteList ? current : removeDirectives(discardNulls(value));
  }
  if (Array.isArray(current)) return mergeListField(current, value as unknown[], meta, deleteList, field).items;
  if (!isPlainObject(current)) return value;
  return meta.strategy === 'replace' ? value : mergeMap(current, value as JsonMap, meta.schema);
}

/**
 * A merged list, and what kube's original list holds afterwards: kube deletes and
 * appends inside the original list's memory, and `$setElementOrder` then orders the
 * server-only items by what that memory holds.
 */
interface MergedList {
  readonly items: unknown[];
  readonly originalAfter: unknown[];
}

/** Merges the lists of one field: by the field's strategy, or as a deletion list. */
function mergeListField(current: unknown[], patch: unknown[], meta: FieldPatchMeta, deleteList: boolean, field: string): MergedList {
  if (meta.strategy !== 'merge' && !deleteList) return { items: patch, originalAfter: current };
  if (current.length === 0 && patch.length === 0) return { items: current, originalAfter: current };
  const mergeKey = meta.mergeKey || undefined;
  if (elementType(current, patch) === mapType) {
    if (!mergeKey) throw unprocessable(`cannot merge lists without merge key for ${field}`);
    return mergeMapList(current, patch, mergeKey, meta.schema.items());
  }
  if (deleteList) return { items: current.filter((item) => !patch.includes(item)), originalAfter: current };
  const union = [...new Set([...current, ...patch])];
  return { items: orderMerged(union, patch, current, mergeKey, false), originalAfter: current };
}

/** Merges lists of maps by merge key, honouring `$patch` items (kube's mergeSlice for maps). */
function mergeMapList(original: unknown[], patch: unknown[], mergeKey: string, items: PatchSchema): MergedList {
  // The original list's memory: its first `length` items are the list being merged.
  const memory = [...original] as JsonMap[];
  let length = memory.length;
  let replace = false;
  const plain: JsonMap[] = [];
  for (const item of patch as JsonMap[]) {
    if (!Object.hasOwn(item, directive)) {
      plain.push(item);
      continue;
    }
    switch (item[directive]) {
      case 'delete':
        length = deleteByKey(memory, length, mergeKey, keyOf(item, mergeKey));
        break;
      case 'replace':
        replace = true;
        break;
      case 'merge':
        throw unprocessable('merging lists cannot yet be specified in the patch');
      default:
        throw badPatchType(item);
    }
  }
  const originalAfter = () => memory.slice(0, original.length);
  if (replace) return { items: orderMerged(plain, [], plain, mergeKey, true), originalAfter: originalAfter() };
  const survivors = memory.slice(0, length);
  for (const item of plain) {
    const at = indexOfKey(memory, length, mergeKey, keyOf(item, mergeKey));
    if (at >= 0) memory[at] = mergeMap(memory[at], item, items);
    else memory[length++] = item;
  }
  return { items: orderMerged(memory.slice(0, length), plain, survivors, mergeKey, true), originalAfter: originalAfter() };
}

/** Removes every item whose merge key is `value` the way Go's in-place `append(s[:i], s[i+1:]...)` does; returns the new length. */
function deleteByKey(memory: JsonMap[], length: number, mergeKey: string, value: unknown): number {
  for (let at = indexOfKey(memory, length, mergeKey, value); at >= 0; at = indexOfKey(memory, length, mergeKey, value)) {
    memory.copyWithin(at, at + 1, length);
    length--;
  }
  return length;
}

/** Where the first of the first `length` items whose merge key is `value` is; -1 when none is. */
function indexOfKey(memory: readonly JsonMap[], length: number, mergeKey: string, value: unknown): number {
  return memory.slice(0, length).findIndex((item) => Object.hasOwn(item, mergeKey) && item[mergeKey] === value);
}

/**
 * The list of a field with a `$setElementOrder` directive, merged and put in that order
 * (kube's mergePatchIntoOriginal); undefined when neither side has the list.
 */
function orderedList(current: unknown, patchList: unknown, order: unknown, meta: FieldPatchMeta, field: string): unknown[] | undefined {
  if (!Array.isArray(order)) throw badArgType([], order);
  const original = listOrAbsent(current);
  const patched = listOrAbsent(patchList);
  const mergeKey = meta.mergeKey || undefined;
  checkPatchOrder(patched ?? [], order, mergeKey);
  if (original === undefined && patched === undefined) return undefined;
  const merged: MergedList =
    original === undefined
      ? { items: removeDirectives(patched) as unknown[], originalAfter: [] }
      : patched === undefined
        ? { items: original, originalAfter: original }
        : mergeListField(original, patched, meta, false, field);
  // kube fails to order a list with no items at all; there is nothing to order.
  const type = elementType(original ?? [], patched ?? []);
  return type === undefined ? merged.items : orderMerged(merged.items, order, merged.originalAfter, mergeKey, type === mapType);
}

/** `value` when it is a list or absent; 422 otherwise. */
function listOrAbsent(value: unknown): unknown[] | undefined {
  if (value === undefined || Array.isArray(value)) return value;
  throw badArgType([], value);
}

/** The Go type every item of the lists shares (undefined when they have no items); kube merges no other lists. */
function elementType(...lists: unknown[][]): string | undefined {
  let shared: string | undefined;
  for (const item of lists.flat()) {
    if (shared === undefined && Array.isArray(item)) throw unprocessable('lists of lists are not supported');
    shared ??= goType(item);
    if (goType(item) !== shared) throw unprocessable(`list element types are not identical: ${goValue(lists)}`);
  }
  return shared;
}

/**
 * A value from the patch without the maps that carry `$patch`; undefined when it is one.
 * Like kube, this leaves the other directive keys in it.
 */
function removeDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(removeDirectives).filter((item) => item !== undefined);
  if (!isPlainObject(value)) return value;
  if (Object.hasOwn(value, directive)) return undefined;
  return Object.fromEntries(
    Object.entries(value)
      .map(([key, item]) => [key, removeDirectives(item)])
      .filter(([, item]) => item !== undefined),
  );
}

/** A value from the patch without null fields, which only delete what exists. */
function discardNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(discardNulls);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, item]) => item !== null)
      .map(([key, item]) => [key, discardNulls(item)]),
  );
}
