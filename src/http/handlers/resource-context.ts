/**
 * What every verb handler receives.
 */
import type { Context } from 'koa';
import type { ApiResource } from '../../apis/api-resource.js';
import type { KubeObject } from '../../machinery/meta/object.js';
import type { Admission, RequestUser } from '../../registry/admission.js';
import type { EndpointREST } from '../../registry/endpoint-rest.js';
import type { RequestScope } from '../../registry/request-scope.js';
import type { ObjectKey, WriteOperation, WriteOrigin } from '../../registry/store.js';
import type { OutputTarget } from '../response/negotiation.js';
import type { Query } from '../request/query.js';
import type { Representation } from '../response/representation.js';
import { respond } from './respond.js';
import type { WatchEventMetrics } from '../filters/metrics.js';

/** A resource request resolved to its endpoint's scope and REST object. */
export interface ResourceContext {
  readonly ctx: Context;
  /** The namespace the path names; undefined for cluster-scoped resources and for lists across all namespaces. */
  readonly namespace?: string;
  /** The object the path names; undefined for a collection. */
  readonly name?: string;
  readonly resource: ApiResource;
  /** The endpoint in the request's version: decoding into the hub, conversion out of it, field-label conversion, field manager. */
  readonly scope: RequestScope;
  /** The endpoint's REST object, which speaks the hub (the router picked the handler by what it implements). */
  readonly rest: EndpointREST;
  readonly admission: Admission;
  /** The authenticated user, when the request has one. */
  readonly user?: RequestUser;
  readonly query: Query;
  /** The negotiated format and transformation of the response. */
  readonly output: OutputTarget;
  /** The one place a response's hub objects are converted to the request's version. */
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
  return rc.resource.namespaced ? (rc.namespace ?? '') : '';
}

/** The object a request names. */
export function keyOf(rc: ResourceContext): ObjectKey {
  return { namespace: namespaceOf(rc), name: rc.name! };
}

/**
 * What a write of this request records with its event, for the object's history: the
 * verb, the subresource, the field manager (`''` for a delete) and the user the
 * request authenticated as (through the aggregation layer, the front proxy's).
 */
export function writeOrigin(rc: ResourceContext, operation: WriteOperation, fieldManager = ''): WriteOrigin {
  return { operation, subresource: rc.scope.subresource ?? '', fieldManager, user: rc.user?.name ?? '' };
}

/**
 * Answers with one hub object in the request's version and the negotiated representation.
 * A frozen object is the object cache's, which storage deep-freezes and shares between
 * readers: when the representation is that object itself, its encoding is shared too.
 */
export function respondObject(rc: ResourceContext, status: number, object: KubeObject): void {
  const shown = rc.representation.object(object);
  respond(rc.ctx, status, shown, rc.output.format, shown === object && Object.isFrozen(object));
}
