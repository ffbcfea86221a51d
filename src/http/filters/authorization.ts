/**
 * Authorization, as kube's `WithAuthorization`: the request's attributes (its user
 * and RequestInfo) go to the authorizer, and only `Allow` lets the request through.
 * A refused authenticated user gets 403 naming user, verb and resource as kube words
 * it; a refused anonymous request gets 401, asking for credentials (kube answers so
 * when anonymous authentication is limited to some paths).
 */
import type { Context, Next } from 'koa';
import type { Authorization, AuthorizationAttributes, Authorizer } from '../../auth/authorizer.js';
import { isAuthenticated, type UserInfo } from '../../auth/user-info.js';
import { forbidden, unauthorized } from '../../machinery/errors.js';
import type { StatusError } from '../../machinery/status.js';
import type { RequestInfo } from '../request/request-info.js';
import { addAuditAnnotations } from './audit-context.js';
import { userOf } from './authentication.js';
import { requestInfoOf } from './request-info.js';

/** kube's `GetAuthorizerAttributes`: what the authorizer is asked about. */
export function authorizationAttributes(user: UserInfo, info: RequestInfo): AuthorizationAttributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
}

/** The 403 of a refused request, worded as kube's `responsewriters.Forbidden`. */
export function forbiddenError(a: AuthorizationAttributes, reason: string): StatusError {
  let why: string;
  if (!a.isResourceRequest) {
    why = `User ${JSON.stringify(a.user.name)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  } else {
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    const where = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
    why = `User ${JSON.stringify(a.user.name)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} ${where}`;
  }
  return forbidden({ group: a.apiGroup, resource: a.resource }, a.name, reason ? `${why}: ${reason}` : why);
}

/** The audit annotations of kube's authorization filter. */
const decisionAnnotation = 'authorization.k8s.io/decision';
const reasonAnnotation = 'authorization.k8s.io/reason';

/** Lets through what `authorizer` allows; 401 or 403 for the rest; the audit event notes the decision and its reason. */
export function withAuthorization(authorizer: Authorizer) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const attributes = authorizationAttributes(userOf(ctx), requestInfoOf(ctx));
    let verdict: Authorization;
    try {
      verdict = await authorizer.authorize(attributes);
    } catch (error) {
      addAuditAnnotations(ctx, { [reasonAnnotation]: 'internal error' });
      throw error;
    }
    const { decision, reason } = verdict;
    addAuditAnnotations(ctx, { [decisionAnnotation]: decision === 'Allow' ? 'allow' : 'forbid', [reasonAnnotation]: reason });
    if (decision !== 'Allow') throw isAuthenticated(attributes.user) ? forbiddenError(attributes, reason) : unauthorized();
    await next();
  };
}
