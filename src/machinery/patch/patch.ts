/**
 * JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7396) on objects, with kube's
 * error semantics: a patch that cannot be decoded is a 400, one that cannot be
 * applied a 422.
 */
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import jsonMergePatch from 'json-merge-patch';
import { maxNestingDepth, maxRequestBodyBytes, nestingDepth, tooDeepMessage } from '../decoding/bounded-decoding.js';
import { badRequest, requestEntityTooLarge, unprocessable } from '../errors.js';
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
  if (patch.length > maxJsonPatchOperations) {
    throw requestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${patch.length}`);
  }
  const problem = fastJsonPatch.validate(patch as Operation[]);
  if (problem) throw badRequest(`invalid JSON Patch: ${problem.message}`);
  let document = deepCopy(target);
  let depth = nestingDepth(document);
  let copied = 0;
  (patch as Operation[]).forEach((operation, index) => {
    let reach = 0;
    if (operation.op === 'add' || operation.op === 'replace') reach = pointerDepth(operation.path) + nestingDepth(operation.value);
    if (operation.op === 'move' || operation.op === 'copy') reach = pointerDepth(operation.path) + depth - pointerDepth(operation.from);
    if (operation.op === 'copy') {
      copied += JSON.stringify(valueAt(document, operation.from) ?? null).length;
      if (copied > maxJsonPatchCopyBytes)
        throw unprocessable(
          `the server rejected our request due to an error in our request: copy would exceed the accumulated copy size limit of ${maxJsonPatchCopyBytes} bytes`,
        );
    }
    if (reach > maxNestingDepth) throw unprocessable(`the server rejected our request due to an error in our request: ${tooDeepMessage('the patched object')}`);
    depth = Math.max(depth, reach);
    try {
      document = fastJsonPatch.applyOperation(document, operation, true, true, true, index).newDocument;
    } catch (error) {
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      throw unprocessable(`the server rejected our request due to an error in our request: ${message}`);
    }
  });
  return document;
}

/** Applies an RFC 7396 merge patch to a copy of `target`. */
export function applyMergePatch<T>(target: T, patch: unknown): T {
  if (!isPlainObject(patch)) throw badRequest('merge patch must be a JSON object');
  return jsonMergePatch.apply(deepCopy(target), patch) as T;
}
