/**
 * Authorization's flags (a standalone Cairn's RBAC policy file; delegation to the main
 * API server's SubjectAccessReview, its caches and the paths always allowed) and the
 * authorizer they apply to a server: SubjectAccessReview when delegated, RBAC over the
 * bootstrap policy and the policy file otherwise.
 */
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Authorizer } from '../../auth/authorizer.js';
import { bootstrapPolicy } from '../../auth/bootstrap-policy.js';
import { defaultAuthorizer } from '../../auth/default-authorizer.js';
import { delegatingAuthorizer } from '../../auth/delegating-authorizer.js';
import { defaultAlwaysAllowPaths } from '../../auth/path-authorizer.js';
import { parseRbacPolicy, type RbacPolicy } from '../../auth/rbac-policy.js';
import type { MainApiServer } from '../main-api-server.js';
import { fileFlag, goDuration, kubeconfigFlag, stringFlag, stringSlice, type ConcernOptions } from './flags.js';

/** Authorization delegated to the main API server, with the flags of k8s.io/apiserver's `DelegatingAuthorizationOptions`. */
export interface AuthorizationDelegation {
  /** `--authorization-kubeconfig`: SubjectAccessReview for every request; the local policy when unset. */
  readonly authorizationKubeconfig?: string;
  /** `--authorization-webhook-cache-authorized-ttl` in ms (10 s). */
  readonly authorizedCacheTtlMs: number;
  /** `--authorization-webhook-cache-unauthorized-ttl` in ms (10 s). */
  readonly unauthorizedCacheTtlMs: number;
  /** `--authorization-always-allow-paths` as given; undefined for the default (kube's `/healthz,/readyz,/livez` when delegating). */
  readonly alwaysAllowPaths?: readonly string[];
}

/** What the authorization flags say. */
export interface AuthorizationOptions {
  /** `--authorization-policy-file`: RBAC roles and bindings for a standalone Cairn; the bootstrap policy alone when unset. */
  readonly authorizationPolicyFile?: string;
  /** Delegated authorization (in a cluster). */
  readonly delegation: AuthorizationDelegation;
}

/** What applying the authorization options needs of the server. */
interface AuthorizationContext {
  readonly options: AuthorizationOptions;
  readonly logger: Logger;
  readonly mainApiServer: MainApiServer;
}

/** The roles and bindings of `--authorization-policy-file`; throws naming the file and what is wrong in it. */
async function loadPolicy(path: string | undefined): Promise<RbacPolicy | undefined> {
  if (path === undefined) return undefined;
  try {
    return parseRbacPolicy(await readFile(path, 'utf8'), bootstrapPolicy);
  } catch (error) {
    throw new Error(`--authorization-policy-file ${path}: ${(error as Error).message}`, { cause: error });
  }
}

export const authorizationOptions = {
  flags: {
    'authorization-kubeconfig': { type: 'string', usage: '[--authorization-kubeconfig FILE]' },
    'authorization-webhook-cache-authorized-ttl': { type: 'string', usage: '[--authorization-webhook-cache-authorized-ttl DURATION]' },
    'authorization-webhook-cache-unauthorized-ttl': { type: 'string', usage: '[--authorization-webhook-cache-unauthorized-ttl DURATION]' },
    'authorization-always-allow-paths': { type: 'string', multiple: true, usage: '[--authorization-always-allow-paths PATH,...]' },
    'authorization-policy-file': { type: 'string', usage: '[--authorization-policy-file FILE]' },
  },

  parse(values) {
    const duration = (flag: string) => goDuration(flag, stringFlag(values, flag), 10_000);
    return {
      authorizationPolicyFile: fileFlag(values, 'authorization-policy-file'),
      delegation: {
        authorizationKubeconfig: kubeconfigFlag(values, 'authorization-kubeconfig'),
        authorizedCacheTtlMs: duration('authorization-webhook-cache-authorized-ttl'),
        unauthorizedCacheTtlMs: duration('authorization-webhook-cache-unauthorized-ttl'),
        alwaysAllowPaths: values['authorization-always-allow-paths'] === undefined ? undefined : stringSlice('authorization-always-allow-paths', values, []),
      },
    };
  },

  async applyTo({ options, logger, mainApiServer }: AuthorizationContext): Promise<Authorizer> {
    const policy = await loadPolicy(options.authorizationPolicyFile);
    if (policy)
      logger.info({ file: options.authorizationPolicyFile, roles: policy.roles.length, bindings: policy.bindings.length }, 'authorization policy loaded');
    const client = mainApiServer.authorizationClient;
    // The main API server's RBAC decides in a cluster; a second policy beside it would be a surprise.
    if (client && policy)
      throw new Error(
        '--authorization-policy-file is for a standalone Cairn: authorization is delegated to the main API server (--authorization-kubeconfig, or the in-cluster config)',
      );
    const delegation = options.delegation;
    return client
      ? delegatingAuthorizer({
          client,
          authorizedTtlMs: delegation.authorizedCacheTtlMs,
          unauthorizedTtlMs: delegation.unauthorizedCacheTtlMs,
          alwaysAllowPaths: delegation.alwaysAllowPaths,
        })
      : defaultAuthorizer(delegation.alwaysAllowPaths ?? defaultAlwaysAllowPaths, policy);
  },
} satisfies ConcernOptions<AuthorizationOptions> & { applyTo(context: AuthorizationContext): Promise<Authorizer> };
