/**
 * The authorizer of a standalone Cairn: the always-allow paths, then RBAC over the
 * bootstrap policy (everything for `system:masters`, discovery for authenticated users,
 * `/version` for anyone) and the roles and bindings of `--authorization-policy-file`.
 */
import type { Authorizer } from './authorizer.js';
import { bootstrapPolicy } from './bootstrap-policy.js';
import { defaultAlwaysAllowPaths, PathAuthorizer } from './path-authorizer.js';
import { RbacAuthorizer } from './rbac-authorizer.js';
import type { RbacPolicy } from './rbac-policy.js';
import { UnionAuthorizer } from './union-authorizer.js';

/** Health paths for anyone, then what the bootstrap policy and `policy` grant. */
export function defaultAuthorizer(alwaysAllowPaths: readonly string[] = defaultAlwaysAllowPaths, policy?: RbacPolicy): Authorizer {
  return new UnionAuthorizer([new PathAuthorizer(alwaysAllowPaths), new RbacAuthorizer(policy ? [bootstrapPolicy, policy] : [bootstrapPolicy])]);
}
