/**
 * The authorizer chain a server runs with unless configured otherwise: the
 * always-allow paths, then the local policy.
 */
import type { Authorizer } from './authorizer.js';
import { LocalPolicyAuthorizer } from './local-policy-authorizer.js';
import { defaultAlwaysAllowPaths, PathAuthorizer } from './path-authorizer.js';
import { UnionAuthorizer } from './union-authorizer.js';

/** Health paths for anyone, everything for authenticated users, `/version` for anyone. */
export function defaultAuthorizer(alwaysAllowPaths: readonly string[] = defaultAlwaysAllowPaths): Authorizer {
  return new UnionAuthorizer([new PathAuthorizer(alwaysAllowPaths), new LocalPolicyAuthorizer()]);
}
