/**
 * The authorizer of a Cairn in a cluster, as k8s.io/apiserver's
 * `DelegatingAuthorizationOptions` builds it: the always-allow paths
 * (`--authorization-always-allow-paths`), the privileged groups (`system:masters`),
 * then a SubjectAccessReview for everything else.
 */
import { allow, noOpinion, type Authorization, type AuthorizationAttributes, type Authorizer } from './authorizer.js';
import { PathAuthorizer } from './path-authorizer.js';
import { SubjectAccessReviewAuthorizer, type SubjectAccessReviewAuthorizerOptions } from './subject-access-review-authorizer.js';
import { UnionAuthorizer } from './union-authorizer.js';

/** kube's `--authorization-always-allow-paths` default. */
export const delegatedAlwaysAllowPaths: readonly string[] = Object.freeze(['/healthz', '/readyz', '/livez']);

/** kube's `AlwaysAllowGroups` default: members of these groups are allowed without a review. */
export const privilegedGroups: readonly string[] = Object.freeze(['system:masters']);

/** Allows every request of a user in one of the groups (kube's `authorizerfactory.NewPrivilegedGroups`). */
export class PrivilegedGroupAuthorizer implements Authorizer {
  readonly #groups: ReadonlySet<string>;

  constructor(groups: readonly string[]) {
    this.#groups = new Set(groups);
  }

  authorize(attributes: AuthorizationAttributes): Authorization {
    return attributes.user.groups.some((group) => this.#groups.has(group)) ? allow() : noOpinion();
  }
}

/** Options of {@link delegatingAuthorizer}. */
export interface DelegatingAuthorizerOptions extends SubjectAccessReviewAuthorizerOptions {
  readonly alwaysAllowPaths?: readonly string[];
  readonly alwaysAllowGroups?: readonly string[];
}

/** Paths, privileged groups, then SubjectAccessReview. */
export function delegatingAuthorizer(options: DelegatingAuthorizerOptions): Authorizer {
  return new UnionAuthorizer([
    new PathAuthorizer(options.alwaysAllowPaths ?? delegatedAlwaysAllowPaths),
    new PrivilegedGroupAuthorizer(options.alwaysAllowGroups ?? privilegedGroups),
    new SubjectAccessReviewAuthorizer(options),
  ]);
}
