/**
 * The policy of a standalone Cairn until RBAC or SubjectAccessReview arrive: every
 * authenticated user may do everything, and anyone may read `/version` (kube's
 * `system:public-info-viewer` role). Anonymous requests get no opinion, so they are
 * refused unless another authorizer (the always-allow paths) lets them through.
 */
import { allow, noOpinion, type Authorization, type AuthorizationAttributes, type Authorizer } from './authorizer.js';
import { isAuthenticated } from './user-info.js';

/** Non-resource paths anyone may read, as kube's `system:public-info-viewer` allows them. */
const publicInfoPaths: ReadonlySet<string> = new Set(['/version', '/version/']);
const readVerbs: ReadonlySet<string> = new Set(['get', 'head']);

/** Allows authenticated users everything and anyone `get /version`. */
export class LocalPolicyAuthorizer implements Authorizer {
  authorize(attributes: AuthorizationAttributes): Authorization {
    if (isAuthenticated(attributes.user)) return allow();
    if (!attributes.isResourceRequest && publicInfoPaths.has(attributes.path) && readVerbs.has(attributes.verb)) return allow();
    return noOpinion();
  }
}
