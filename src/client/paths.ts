/**
 * The paths of every served version in one map, as the client serves them all:
 * `/apis/cairn.dev/v1/…`, `/apis/cairn.dev/v1beta1/…` and `/apis/cairn.dev/v1alpha1/…`.
 */
import type { paths as v1 } from './generated/cairn-dev-v1.js';
import type { paths as v1alpha1 } from './generated/cairn-dev-v1alpha1.js';
import type { paths as v1beta1 } from './generated/cairn-dev-v1beta1.js';

/** Every operation of every version, keyed by path. */
export type paths = v1 & v1beta1 & v1alpha1;

/** The path parameters of `P`'s operation `method`, e.g. `{ namespace: string; name: string }`. */
export type PathParameters<P extends keyof paths, M extends 'get' | 'put' | 'patch' = 'get'> = paths[P][M] extends { parameters: { path: infer T } }
  ? T
  : never;

/** The object `P`'s GET answers with. */
export type ObjectOf<P extends keyof paths> = paths[P] extends { get: { responses: { 200: { content: { 'application/json': infer T } } } } } ? T : never;

/** An untyped call: the typed ones cannot be called with a path that is a type parameter. */
export type UntypedCall<T = unknown> = (path: string, init: object) => Promise<{ data?: T; error?: unknown; response: Response }>;
