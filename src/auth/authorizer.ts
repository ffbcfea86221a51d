/**
 * The authorization seam, as k8s.io/apiserver's `authorizer.Authorizer`: every
 * request is described by its attributes (who, which verb, on what) and an
 * authorizer allows it, denies it, or has no opinion, giving a reason.
 */
import type { UserInfo } from './user-info.js';

/**
 * kube's `authorizer.Attributes`: what a request does, read from its RequestInfo and
 * its user. Resource requests carry the group, version, resource, subresource,
 * namespace and name; non-resource requests (`/healthz`, `/version`, `/openapi/v3`) the path.
 */
export interface AuthorizationAttributes {
  readonly user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection; the lower-case HTTP method off resources. */
  readonly verb: string;
  readonly isResourceRequest: boolean;
  readonly path: string;
  /** '' for cluster-scoped resources and for lists across all namespaces. */
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  /** '' when the request names no object. */
  readonly name: string;
}

/** An authorizer's verdict: `NoOpinion` lets the next authorizer decide; only `Allow` lets a request through. */
export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

/** A verdict and why, as kube's `Authorize` returns `(decision, reason, err)`; the reason reaches a 403's message. */
export interface Authorization {
  readonly decision: Decision;
  readonly reason: string;
}

/**
 * Decides whether a request may proceed. A thrown error means the authorizer could not
 * decide (a 500), never a denial.
 *
 * @example
 * const readOnly: Authorizer = {
 *   authorize: (a) => (['get', 'list', 'watch'].includes(a.verb) ? allow() : noOpinion('read-only')),
 * };
 */
export interface Authorizer {
  authorize(attributes: AuthorizationAttributes): Authorization | Promise<Authorization>;
}

/** An `Allow` verdict. */
export function allow(reason = ''): Authorization {
  return { decision: 'Allow', reason };
}

/** A `Deny` verdict: no later authorizer is asked. */
export function deny(reason = ''): Authorization {
  return { decision: 'Deny', reason };
}

/** A `NoOpinion` verdict: the next authorizer decides; forbidden when none allows. */
export function noOpinion(reason = ''): Authorization {
  return { decision: 'NoOpinion', reason };
}
