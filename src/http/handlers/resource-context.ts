/**
 * What every verb handler receives.
 */
import type { Context } from 'koa';
import type { ApiResource } from '../../apis/api-resource.js';
import type { KubeObject } from '../../machinery/meta/object.js';
import type { Admission, RequestUser } from '../../registry/admission.js';
import type { ResourceStorages } from '../../registry/registry.js';
import type { ObjectKey } from '../../registry/store.js';
import type { OutputTarget } from '../response/negotiation.js';
import type { Query } from '../request/query.js';
import type { Representation } from '../response/representation.js';
import type { RequestScope } from '../request-scope.js';
import type { ResourceRequest } from '../request/request-info.js';
import { respond } from '../response/respond.js';
import type { WatchEventMetrics } from '../filters/metrics.js';

/** A resource request resolved to its scope and storages. */
export interface ResourceContext {
  readonly ctx: Context;
  readonly request: ResourceRequest;
  readonly resource: ApiResource;
  /** The endpoint in the request's version: decoding, conversion, field manager, REST object. */
  readonly scope: RequestScope;
  /** The resource's store and subresource REST objects, in the storage version. */
  readonly storages: ResourceStorages;
  readonly admission: Admission;
  /** The authenticated user, when the request has one. */
  readonly user?: RequestUser;
  readonly query: Query;
  /** The negotiated format and transformation of the response. */
  readonly output: OutputTarget;
  readonly representation: Representation;
  /** Aborts when the server starts shutting down, for long-running requests. */
  readonly shutdown: AbortSignal;
  /** Milliseconds between BOOKMARK events of watches that allow them. */
  readonly bookmarkIntervalMs: number;
  /** Where watches record the events they send. */
  readonly watchEvents: WatchEventMetrics;
  /** How long a watch waits for its client to read before ending it. */
  readonly unresponsiveWatcherTimeoutMs: number;
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
