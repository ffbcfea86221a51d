/**
 * The `status` and `scale` subresources, as client-go's `UpdateStatus` and
 * `GetScale`/`UpdateScale` offer them: status read, replaced or patched through the
 * object's path, and a Pipeline's `autoscaling/v1` Scale read, replaced, or set to a
 * number of replicas in one call (what `kubectl scale` does).
 */
import type { Client } from 'openapi-fetch';
import type { Scale } from './kinds.js';
import { patch, type PatchPath, type PatchRequest, type PatchedObject } from './patch.js';
import type { ObjectOf, PathParameters, paths, UntypedCall } from './paths.js';
import { pipelineSubresourcePath, type PipelineName, type PipelineRequestOptions } from './pipeline-name.js';
import { unwrap } from './unwrap.js';

/** The path of an object with a status subresource, e.g. `/apis/cairn.dev/v1/runnerclasses/{name}`. */
export type StatusPath = { [P in keyof paths]: `${P}/status` extends keyof paths ? P : never }[keyof paths];

/** The status subresource's path of `P`. */
export type StatusOf<P extends StatusPath> = `${P}/status` & PatchPath;

/** Which object, and when to give up. */
export interface StatusRequest<P extends StatusPath> {
  /** The path parameters of `P`, e.g. `{ namespace: 'default', name: 'ingest' }`. */
  readonly path: PathParameters<P>;
  readonly signal?: AbortSignal;
}

/** Reads the object of `path` through its status subresource. */
export async function getStatus<P extends StatusPath>(api: Client<paths>, path: P, request: StatusRequest<P>): Promise<ObjectOf<P>> {
  return (await unwrap((api.GET as unknown as UntypedCall)(`${path}/status`, { params: { path: request.path }, signal: request.signal }))) as ObjectOf<P>;
}

/** Replaces the status of the object of `path` with `request.body`'s (its resourceVersion guards against a lost update: 409 Conflict). */
export async function replaceStatus<P extends StatusPath>(
  api: Client<paths>,
  path: P,
  request: StatusRequest<P> & { readonly body: ObjectOf<P> },
): Promise<ObjectOf<P>> {
  const init = { params: { path: request.path }, body: request.body, signal: request.signal };
  return (await unwrap((api.PUT as unknown as UntypedCall)(`${path}/status`, init))) as ObjectOf<P>;
}

/** Patches the status of the object of `path`. */
export function patchStatus<P extends StatusPath>(api: Client<paths>, path: P, request: PatchRequest<StatusOf<P>>): Promise<PatchedObject<StatusOf<P>>> {
  return patch(api, `${path}/status` as StatusOf<P>, request);
}

const scalePath = (options: PipelineRequestOptions) => pipelineSubresourcePath('scale', options.version);

/** Reads a Pipeline's Scale. */
export async function getScale(api: Client<paths>, pipeline: PipelineName, options: PipelineRequestOptions = {}): Promise<Scale> {
  return unwrap(api.GET(scalePath(options), { params: { path: pipeline }, signal: options.signal }));
}

/** Replaces a Pipeline's Scale (`spec.replicas`; its resourceVersion, when set, guards against a lost update). */
export async function replaceScale(api: Client<paths>, pipeline: PipelineName, scale: Scale, options: PipelineRequestOptions = {}): Promise<Scale> {
  return unwrap(api.PUT(scalePath(options), { params: { path: pipeline }, body: scale, signal: options.signal }));
}

/** Sets a Pipeline's replicas, as `kubectl scale --replicas` does: a merge patch of its Scale. */
export function scale(api: Client<paths>, pipeline: PipelineName, replicas: number, options: PipelineRequestOptions = {}): Promise<Scale> {
  return patch(api, scalePath(options), { path: pipeline, type: 'merge', body: { spec: { replicas } }, signal: options.signal });
}
