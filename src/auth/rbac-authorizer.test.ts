/**
 * RBAC rules matched with kube's semantics: verbs, groups, resources with subresources,
 * resourceNames, nonResourceURLs and wildcards.
 */
import { describe, expect, it } from 'vitest';
import type { AuthorizationAttributes, Decision } from './authorizer.js';
import { RbacAuthorizer, ruleAllows } from './rbac-authorizer.js';
import { parseRbacPolicy, type PolicyRule } from './rbac-policy.js';
import type { UserInfo } from './user-info.js';
import { nonResourceAttributes, pipelineAttributes } from '../../test/support/authorization-attributes.js';

const alice: UserInfo = { name: 'alice', groups: ['team', 'system:authenticated'] };
const bob: UserInfo = { name: 'bob', groups: ['system:authenticated'] };
const robot: UserInfo = { name: 'system:serviceaccount:ci:robot', groups: ['system:serviceaccounts', 'system:authenticated'] };

/** A request for Pipelines in namespace `ns`, by alice, unless told otherwise. */
const resource = (verb: string, rest: Partial<AuthorizationAttributes> = {}) => pipelineAttributes(alice, verb, rest);
const nonResource = (verb: string, path: string, user = alice) => nonResourceAttributes(user, verb, path);

const rule = (r: Partial<PolicyRule>): PolicyRule => ({ verbs: [], apiGroups: [], resources: [], resourceNames: [], nonResourceURLs: [], ...r });

describe('ruleAllows', () => {
  const pipelinesReader = rule({ verbs: ['get', 'list', 'watch'], apiGroups: ['cairn.dev'], resources: ['pipelines'] });
  it.each<[string, PolicyRule, AuthorizationAttributes, boolean]>([
    ['a listed verb', pipelinesReader, resource('list'), true],
    ['another verb', pipelinesReader, resource('create'), false],
    ['the * verb', rule({ verbs: ['*'], apiGroups: ['cairn.dev'], resources: ['pipelines'] }), resource('deletecollection'), true],
    ['another API group', pipelinesReader, resource('get', { apiGroup: 'apps' }), false],
    ['the * API group', rule({ verbs: ['get'], apiGroups: ['*'], resources: ['pipelines'] }), resource('get', { apiGroup: 'apps' }), true],
    ['the core group is ""', rule({ verbs: ['get'], apiGroups: [''], resources: ['pipelines'] }), resource('get'), false],
    ['another resource', pipelinesReader, resource('get', { resource: 'runnerclasses' }), false],
    ['the * resource', rule({ verbs: ['get'], apiGroups: ['cairn.dev'], resources: ['*'] }), resource('get', { resource: 'runnerclasses' }), true],
    ['a subresource needs its own grant', pipelinesReader, resource('get', { name: 'p', subresource: 'status' }), false],
    [
      'resource/subresource',
      rule({ verbs: ['update'], apiGroups: ['cairn.dev'], resources: ['pipelines/status'] }),
      resource('update', { name: 'p', subresource: 'status' }),
      true,
    ],
    [
      'resource/subresource is not the resource',
      rule({ verbs: ['update'], apiGroups: ['cairn.dev'], resources: ['pipelines/status'] }),
      resource('update', { name: 'p' }),
      false,
    ],
    ['*/scale', rule({ verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }), resource('get', { name: 'p', subresource: 'scale' }), true],
    ['*/scale is not status', rule({ verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }), resource('get', { name: 'p', subresource: 'status' }), false],
    ['*/scale is not a resource', rule({ verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }), resource('get', { name: 'p' }), false],
    ['* covers subresources', rule({ verbs: ['get'], apiGroups: ['*'], resources: ['*'] }), resource('get', { name: 'p', subresource: 'log' }), true],
    [
      'a named object',
      rule({ verbs: ['get'], apiGroups: ['cairn.dev'], resources: ['pipelines'], resourceNames: ['p'] }),
      resource('get', { name: 'p' }),
      true,
    ],
    ['another name', rule({ verbs: ['get'], apiGroups: ['cairn.dev'], resources: ['pipelines'], resourceNames: ['p'] }), resource('get', { name: 'q' }), false],
    [
      'resourceNames never match a list',
      rule({ verbs: ['list'], apiGroups: ['cairn.dev'], resources: ['pipelines'], resourceNames: ['p'] }),
      resource('list'),
      false,
    ],
    ['resource rules never match a path', pipelinesReader, nonResource('get', '/apis'), false],
    ['an exact path', rule({ verbs: ['get'], nonResourceURLs: ['/apis'] }), nonResource('get', '/apis'), true],
    ['a longer path', rule({ verbs: ['get'], nonResourceURLs: ['/apis'] }), nonResource('get', '/apis/cairn.dev'), false],
    ['a trailing *', rule({ verbs: ['get'], nonResourceURLs: ['/apis/*'] }), nonResource('get', '/apis/cairn.dev/v1'), true],
    ['a trailing * is a plain prefix', rule({ verbs: ['get'], nonResourceURLs: ['/api*'] }), nonResource('get', '/apis'), true],
    ['the * path', rule({ verbs: ['get'], nonResourceURLs: ['*'] }), nonResource('get', '/metrics'), true],
    ['a path rule never matches a resource', rule({ verbs: ['*'], nonResourceURLs: ['*'] }), resource('get'), false],
    ['a path and another verb', rule({ verbs: ['get'], nonResourceURLs: ['*'] }), nonResource('post', '/metrics'), false],
  ])('%s', (_, r, attributes, allowed) => {
    expect(ruleAllows(attributes, r)).toBe(allowed);
  });
});

describe('RbacAuthorizer', () => {
  const policy = parseRbacPolicy(`
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: pipeline-reader }
rules:
- { apiGroups: [cairn.dev], resources: [pipelines], verbs: [get, list, watch] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: scaler, namespace: ns }
rules:
- { apiGroups: [cairn.dev], resources: [pipelines/scale], verbs: [update] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: scaler, namespace: other }
rules:
- { apiGroups: ['*'], resources: ['*'], verbs: ['*'] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: team-reads, namespace: ns }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: pipeline-reader }
subjects:
- { apiGroup: rbac.authorization.k8s.io, kind: Group, name: team }
- { kind: ServiceAccount, name: robot }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: alice-scales, namespace: ns }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: scaler }
subjects: [{ kind: User, name: alice }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: robot-reads-everywhere }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: pipeline-reader }
subjects: [{ kind: ServiceAccount, name: robot, namespace: prod }]
`);
  const authorizer = new RbacAuthorizer([policy]);
  const prodRobot: UserInfo = { ...robot, name: 'system:serviceaccount:prod:robot' };

  it.each<[string, AuthorizationAttributes, Decision]>([
    ['a group member reads in the binding’s namespace', resource('watch'), 'Allow'],
    ['a group member writes', resource('create'), 'NoOpinion'],
    ['a group member reads in another namespace', resource('get', { namespace: 'elsewhere', name: 'p' }), 'NoOpinion'],
    ['a RoleBinding to a ClusterRole grants nothing across namespaces', resource('list', { namespace: '' }), 'NoOpinion'],
    ['someone outside the group', resource('get', { user: bob, name: 'p' }), 'NoOpinion'],
    ['a User bound to a Role of the namespace', resource('update', { name: 'p', subresource: 'scale' }), 'Allow'],
    ['a Role of the same name in another namespace is another role', resource('delete', { name: 'p' }), 'NoOpinion'],
    ['a ServiceAccount subject without a namespace is of the binding’s', resource('list', { user: robot, namespace: 'ns' }), 'NoOpinion'],
    ['a ServiceAccount of the binding’s namespace', resource('list', { user: { ...robot, name: 'system:serviceaccount:ns:robot' } }), 'Allow'],
    ['a ClusterRoleBinding grants in every namespace', resource('get', { user: prodRobot, namespace: 'any', name: 'p' }), 'Allow'],
    ['a ClusterRoleBinding grants across namespaces', resource('list', { user: prodRobot, namespace: '' }), 'Allow'],
    ['a ServiceAccount of another namespace', resource('list', { user: robot, namespace: '' }), 'NoOpinion'],
  ])('%s', (_, attributes, decision) => {
    expect(authorizer.authorize(attributes).decision).toBe(decision);
  });

  it('says, as kube’s RBAC does, which binding allowed a request; and never denies', () => {
    expect(authorizer.authorize(resource('get'))).toEqual({
      decision: 'Allow',
      reason: 'RBAC: allowed by RoleBinding "ns/team-reads" of ClusterRole "pipeline-reader" to Group "team"',
    });
    expect(authorizer.authorize(resource('delete', { user: bob }))).toEqual({ decision: 'NoOpinion', reason: '' });
  });
});
