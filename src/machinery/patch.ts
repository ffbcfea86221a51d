/**
 * JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7396) on objects, with kube's
 * error semantics: a patch that cannot be decoded is a 400, one that cannot be
 * applied a 422.
 */
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import jsonMergePatch from 'json-merge-patch';
import { badRequest, unprocessable } from './errors.js';
import { deepCopy, isPlainObject } from './object.js';

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

/** Applies an RFC 6902 patch document to a copy of `target`. */
export function applyJsonPatch<T>(target: T, patch: unknown): T {
  if (!Array.isArray(patch)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  const problem = fastJsonPatch.validate(patch as Operation[]);
  if (problem) throw badRequest(`invalid JSON Patch: ${problem.message}`);
  try {
    return fastJsonPatch.applyPatch(deepCopy(target), patch as Operation[], true, false).newDocument;
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    throw unprocessable(`the server rejected our request due to an error in our request: ${message}`);
  }
}

/** Applies an RFC 7396 merge patch to a copy of `target`. */
export function applyMergePatch<T>(target: T, patch: unknown): T {
  if (!isPlainObject(patch)) throw badRequest('merge patch must be a JSON object');
  return jsonMergePatch.apply(deepCopy(target), patch) as T;
}
