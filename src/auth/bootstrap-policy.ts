/**
 * The roles and bindings every standalone Cairn has, a subset of kube-apiserver's
 * bootstrap policy (`plugin/pkg/auth/authorizer/rbac/bootstrappolicy`): `cluster-admin`
 * for the admin group `system:masters` (the admin kubeconfig's), `system:discovery` for
 * every authenticated user, `system:public-info-viewer` for everyone, `system:monitoring`
 * (the metrics and health paths) for the group of that name. kube's
 * `system:basic-user` is left out: it grants the self-review APIs, which Cairn does not
 * serve. A policy file may bind these roles too.
 */
import type { Binding, PolicyRule, RbacPolicy, Role } from './rbac-policy.js';
import { allAuthenticated, allUnauthenticated } from './user-info.js';

/** The admin kubeconfig's group, bound to everything as Kubernetes binds it. */
export const adminGroup = 'system:masters';

const getPaths = (paths: readonly string[]): PolicyRule => ({ verbs: ['get'], apiGroups: [], resources: [], resourceNames: [], nonResourceURLs: paths });

const clusterRole = (name: string, rules: readonly PolicyRule[]): Role => ({ kind: 'ClusterRole', name, namespace: '', rules });

const toGroups = (name: string, groups: readonly string[]): Binding => ({
  kind: 'ClusterRoleBinding',
  name,
  namespace: '',
  roleRef: { kind: 'ClusterRole', name },
  subjects: groups.map((group) => ({ kind: 'Group', name: group, namespace: '' })),
});

const publicInfoPaths = ['/healthz', '/livez', '/readyz', '/version', '/version/'];

/** Roles and bindings named as kube names them, so a policy written for a cluster reads the same here. */
export const bootstrapPolicy: RbacPolicy = Object.freeze({
  roles: [
    clusterRole('cluster-admin', [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [], nonResourceURLs: [] },
      { verbs: ['*'], apiGroups: [], resources: [], resourceNames: [], nonResourceURLs: ['*'] },
    ]),
    clusterRole('system:discovery', [
      getPaths(['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/']),
    ]),
    clusterRole('system:public-info-viewer', [getPaths(publicInfoPaths)]),
    clusterRole('system:monitoring', [getPaths(['/metrics', '/metrics/slis', '/healthz', '/healthz/*', '/livez', '/livez/*', '/readyz', '/readyz/*'])]),
  ],
  bindings: [
    toGroups('cluster-admin', [adminGroup]),
    toGroups('system:discovery', [allAuthenticated]),
    toGroups('system:public-info-viewer', [allAuthenticated, allUnauthenticated]),
    toGroups('system:monitoring', ['system:monitoring']),
  ],
});
