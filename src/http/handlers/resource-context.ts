/**
 * What every verb handler receives.
 */
import type { Context } from 'koa';
import type { ApiResource } from '../../apis/api-resource.js';
import type { Store } from '../../registry/store.js';
import type { OutputFormat } from '../negotiation.js';
import type { Query } from '../query.js';
import type { ResourceRequest } from '../request-info.js';

/** A resource request resolved to its store. */
export interface ResourceContext {
  readonly ctx: Context;
  readonly request: ResourceRequest;
  readonly resource: ApiResource;
  readonly store: Store;
  readonly query: Query;
  readonly format: OutputFormat;
  /** Resolves when the server starts shutting down, for long-running requests. */
  readonly shutdown: AbortSignal;
}

/** The namespace of the request's objects ('' for cluster-scoped resources). */
export function namespaceOf(rc: ResourceContext): string {
  return rc.resource.namespaced ? (rc.request.namespace ?? '') : '';
}
