/**
 * Typed patches, one shape per patch type kube accepts, each sent with its content
 * type: a JSON Patch (RFC 6902) is a list of operations; a JSON merge patch (RFC 7386)
 * is the object with only the fields to change, `null` removing one, lists replaced
 * whole; a strategic merge patch is a merge patch whose lists of objects with a merge
 * key (a Pipeline's `steps` and `env`, by `name`; `conditions`, by `type`) merge item by
 * item, with kube's `$patch` directives; an apply configuration (server-side apply) is
 * the object as its field manager wants it, `apiVersion` and `kind` included.
 */
import type { Client } from 'openapi-fetch';
import type { PathParameters, paths, UntypedCall } from './paths.js';
import { unwrap } from './unwrap.js';

/** The content type of each patch type. */
export const patchContentTypes = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** A patch type: `json`, `merge`, `strategic` or `apply`. */
export type PatchType = keyof typeof patchContentTypes;

/** The paths that take a PATCH. */
export type PatchPath = { [P in keyof paths]: paths[P] extends { patch: object } ? P : never }[keyof paths];

/** The patch types `P` accepts, from its request body's content types (a Scale takes no apply patch). */
export type PatchTypeOf<P extends PatchPath> = {
  [T in PatchType]: (typeof patchContentTypes)[T] extends keyof PatchBodies<P> ? T : never;
}[PatchType];

type PatchBodies<P extends PatchPath> = paths[P] extends { patch: { requestBody: { content: infer C } } } ? C : never;

/** What `P`'s PATCH answers with: the object, or a Scale. */
export type PatchedObject<P extends PatchPath> = paths[P] extends { patch: { responses: { 200: { content: { 'application/json': infer T } } } } } ? T : never;

/** One RFC 6902 operation; `path` and `from` are JSON Pointers (`/spec/replicas`, `/spec/steps/0`). */
export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'move' | 'copy'; readonly from: string; readonly path: string };

/** An RFC 7386 merge patch of `T`: only the fields to change, `null` to remove one; a list is replaced whole. */
export type MergePatch<T> = T extends readonly unknown[] ? T : T extends object ? { readonly [K in keyof T]?: MergePatch<T[K]> | null } : T;

/** kube's directives in a strategic merge patch's object (see kube's strategic-merge-patch.md). */
interface StrategicDirectives {
  /** `replace` the object instead of merging it, `delete` it (in a list, the item with the same merge key). */
  readonly $patch?: 'merge' | 'replace' | 'delete';
  /** The fields to keep; the others are removed. */
  readonly $retainKeys?: readonly string[];
}

/**
 * A strategic merge patch of `T`: a merge patch whose lists of objects merge item by
 * item on their merge key (give the key in each item), with kube's directives.
 */
export type StrategicMergePatch<T> = T extends readonly (infer I)[]
  ? readonly (I extends object ? StrategicMergePatch<I> : I)[]
  : T extends object
    ? { readonly [K in keyof T]?: StrategicMergePatch<T[K]> | null } & StrategicDirectives & {
          readonly [order: `$setElementOrder/${string}`]: readonly unknown[];
        }
    : T;

/** Every field optional, at any depth: what a server-side apply configuration may leave out. */
type DeepPartial<T> = T extends readonly (infer I)[] ? readonly DeepPartial<I>[] : T extends object ? { readonly [K in keyof T]?: DeepPartial<T[K]> } : T;

/** A server-side apply configuration of `T`: the fields its manager owns, with `apiVersion` and `kind`. */
export type ApplyConfiguration<T> = DeepPartial<T> & { readonly apiVersion: string; readonly kind: string };

/** The request body and options of each patch type of the object `T`. */
type PatchBodyOf<T> =
  | { readonly type: 'json'; readonly body: readonly JsonPatchOperation[]; readonly fieldManager?: string }
  | { readonly type: 'merge'; readonly body: MergePatch<T>; readonly fieldManager?: string }
  | { readonly type: 'strategic'; readonly body: StrategicMergePatch<T>; readonly fieldManager?: string }
  | {
      readonly type: 'apply';
      readonly body: ApplyConfiguration<T>;
      /** Who owns the applied fields; kube requires it for apply. */
      readonly fieldManager: string;
      /** Take over fields another manager owns instead of failing with 409 Conflict. */
      readonly force?: boolean;
    };

/** A patch of `P`: its path parameters, a patch type `P` accepts and the body of that type. */
export type PatchRequest<P extends PatchPath> = Extract<PatchBodyOf<PatchedObject<P>>, { readonly type: PatchTypeOf<P> }> & {
  /** The path parameters of `P`, e.g. `{ namespace: 'default', name: 'ingest' }`. */
  readonly path: PathParameters<P, 'patch'>;
  /** `All`: validate and answer, persist nothing. */
  readonly dryRun?: 'All';
  /** What to do with fields the schema does not know: `Strict` refuses them (400), `Warn` (the default) answers a warning, `Ignore` drops them. */
  readonly fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  readonly signal?: AbortSignal;
};

/**
 * Patches `path` and answers the patched object; throws an ApiError.
 *
 * @example
 * await patch(api, '/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}', {
 *   path: { namespace: 'default', name: 'ingest' },
 *   type: 'strategic',
 *   body: { spec: { steps: [{ name: 'fetch', image: 'alpine:3.21' }] } },
 * });
 */
export async function patch<P extends PatchPath>(api: Client<paths>, path: P, request: PatchRequest<P>): Promise<PatchedObject<P>> {
  // Every patch type's fields, read alike: only apply has `force`.
  const { type, body, fieldManager, force, dryRun, fieldValidation, signal } = request as PatchRequest<P> & { readonly force?: boolean };
  const query = { fieldManager, force, dryRun, fieldValidation };
  const init = { params: { path: request.path, query }, body, headers: { 'Content-Type': patchContentTypes[type] }, signal };
  return (await unwrap((api.PATCH as unknown as UntypedCall)(path, init))) as PatchedObject<P>;
}
