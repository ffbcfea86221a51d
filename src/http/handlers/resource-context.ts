/**
 * What every verb handler receives.
 */
import type { Context } from 'koa';
import type { ApiResource } from '../../apis/api-resource.js';
import type { ObjectKey, Store } from '../../registry/store.js';
import type { KubeObject } from '../../machinery/object.js';
import type { OutputTarget } from '../negotiation.js';
import type { Query } from '../query.js';
import type { Representation } from '../representation.js';
import type { ResourceRequest } from '../request-info.js';
import { respond } from '../respond.js';

/** A resource request resolved to its store. */
export interface ResourceContext {
  readonly ctx: Context;
  readonly request: ResourceRequest;
  readonly resource: ApiResource;
  readonly store: Store;
  readonly query: Query;
  /** The negotiated format and transformation of the response. */
  readonly output: OutputTarget;
  readonly representation: Representation;
  /** Resolves when the server starts shutting down, for long-running requests. */
  readonly shutdown: AbortSignal;
  /** Milliseconds between BOOKMARK events of watches that allow them. */
  readonly bookmarkIntervalMs: number;
}

/** The namespace of the request's objects ('' for cluster-scoped resources). */
export function namespaceOf(rc: ResourceContext): string {
  return rc.resource.namespaced ? (rc.request.namespace ?? '') : '';
}

/** The object a request names. */
export function keyOf(rc: ResourceContext): ObjectKey {
  return { namespace: namespaceOf(rc), name: rc.request.name! };
}

/** Answers with one object in the negotiated representation. */
export function respondObject(rc: ResourceContext, status: number, object: KubeObject): void {
  respond(rc.ctx, status, rc.representation.object(object), rc.output.format);
}

/** The subresource a write goes through, as the store knows it (`status`), if any. */
export function subresourceOf(rc: ResourceContext): 'status' | undefined {
  return rc.request.subresource === 'status' ? 'status' : undefined;
}
