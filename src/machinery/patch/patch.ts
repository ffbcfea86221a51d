/**
 * JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7396) on objects, with kube's
 * error semantics: a patch that cannot be decoded is a 400, one that cannot be
 * applied (an unknown `op` included) kube's generic 422, which says no more.
 */
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import jsonMergePatch from 'json-merge-patch';
import { maxNestingDepth, maxRequestBodyBytes, nestingDepth } from '../decoding/bounded-decoding.js';
import { badRequest, requestEntityTooLarge, requestRejected } from '../errors.js';
import { deepCopy, isPlainObject } from '../meta/object.js';

/** The patch media types Cairn applies. */
export const patchTypes = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
} as const;

/** Server-side apply's media type: a PATCH that carries an applied configuration rather than a patch. */
export const applyPatchType = 'application/apply-patch+yaml';

/** Every media type a PATCH request may carry. */
export const patchContentTypes: readonly string[] = [...Object.values(patchTypes), applyPatchType];

/** A patch type by its short name (`json`, `merge`, `strategic`). */
export type PatchType = keyof typeof patchTypes;

/** kube-apiserver's limit on the operations of one JSON Patch. */
export const maxJsonPatchOperations = 10_000;

/** kube's limit on the bytes `copy` operations may duplicate, so a patch cannot grow an object exponentially. */
export const maxJsonPatchCopyBytes = maxRequestBodyBytes;

/** The number of segments of a JSON pointer: how many containers stand above what it points at. */
function pointerDepth(pointer: unknown): number {
  return typeof pointer === 'string' && pointer !== '' ? pointer.split('/').length - 1 : 0;
}

/** The value a JSON pointer names; undefined where it names nothing (a path through a string, say). */
function valueAt(document: unknown, pointer: string): unknown {
  try {
    return fastJsonPatch.getValueByPointer(document, pointer) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Applies an RFC 6902 patch document to a copy of `target`, one operation at a time,
 * keeping a bound on the document's nesting depth: an `add` or `replace` puts its value
 * that deep, a `move` or `copy` at most as deep as the document already reaches below
 * `from`. Every intermediate document stays within the bound the library's own
 * recursive clones and comparisons can walk, and `copy` is held to kube's byte limit.
 */
export function applyJsonPatch<T>(target: T, patch: unknown): T {
  if (!Array.isArray(patch)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  const operations = patch.map(asOperation);
  if (operations.length > maxJsonPatchOperations) {
    throw requestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${operations.length}`);
  }
  // The rest (an unknown op, a missing path or from) is only found applying it, as in kube's json-patch.
  if (fastJsonPatch.validate(operations)) throw requestRejected();
  let document = deepCopy(target);
  let depth = nestingDepth(document);
  let copied = 0;
  operations.forEach((operation, index) => {
    let reach = 0;
    if (operation.op === 'add' || operation.op === 'replace') reach = pointerDepth(operation.path) + nestingDepth(operation.value);
    if (operation.op === 'move' || operation.op === 'copy') reach = pointerDepth(operation.path) + depth - pointerDepth(operation.from);
    if (operation.op === 'copy') {
      copied += JSON.stringify(valueAt(document, operation.from) ?? null).length;
      if (copied > maxJsonPatchCopyBytes) throw requestRejected();
    }
    if (reach > maxNestingDepth) throw requestRejected();
    depth = Math.max(depth, reach);
    try {
      document = fastJsonPatch.applyOperation(document, operation, true, true, true, index).newDocument;
    } catch {
      throw requestRejected();
    }
  });
  return document;
}

/** Go's name of a JSON value's type, as its decoding errors print it. */
function goJsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/**
 * One operation as kube's json-patch decodes it: an entry that is not an object is a
 * 400; null is an empty operation; a missing `value` is null.
 */
function asOperation(entry: unknown): Operation {
  if (entry === null) return {} as Operation;
  if (!isPlainObject(entry)) throw badRequest(`json: cannot unmarshal ${goJsonType(entry)} into Go value of type jsonpatch.Operation`);
  const takesValue = entry.op === 'add' || entry.op === 'replace' || entry.op === 'test';
  return (takesValue && !('value' in entry) ? { ...entry, value: null } : entry) as unknown as Operation;
}

/**
 * Checks a JSON Patch as kube's patcher decodes it into `[]jsonPatchOp` before its patch
 * library reads it (under fieldValidation Strict and Warn): 400 `error decoding patch: …`,
 * in Go's words, for a document that is not a list, an operation that is not an object, or
 * an `op`, `path` or `from` that is not a string. null is none.
 */
export function decodeJsonPatchOperations(patch: unknown): void {
  const refused = (problem: string) => badRequest(`error decoding patch: json: cannot unmarshal ${problem}`);
  if (patch === null) return;
  if (!Array.isArray(patch)) throw refused(`${goJsonType(patch)} into Go value of type []handlers.jsonPatchOp`);
  for (const entry of patch) {
    if (entry === null) continue;
    if (!isPlainObject(entry)) throw refused(`${goJsonType(entry)} into Go value of type handlers.jsonPatchOp`);
    // In the operation's order, as Go's decoder meets them; its other fields are anything.
    for (const [field, value] of Object.entries(entry)) {
      if ((field === 'op' || field === 'path' || field === 'from') && value !== null && typeof value !== 'string') {
        throw refused(`${goJsonType(value)} into Go struct field jsonPatchOp.${field} of type string`);
      }
    }
  }
}

/** Applies an RFC 7396 merge patch to a copy of `target`. */
export function applyMergePatch<T>(target: T, patch: unknown): T {
  if (!isPlainObject(patch)) throw badRequest('merge patch must be a JSON object');
  return jsonMergePatch.apply(deepCopy(target), patch) as T;
}
