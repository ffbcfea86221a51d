/**
 * Parsing `--authorization-policy-file`: documents and Lists, bindings to the built-in roles,
 * and the files kube would refuse.
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { bootstrapPolicy } from './bootstrap-policy.js';
import { parseRbacPolicy } from './rbac-policy.js';

const rbac = 'rbac.authorization.k8s.io/v1';
const roleRef = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });
const reader = {
  apiVersion: rbac,
  kind: 'ClusterRole',
  metadata: { name: 'reader' },
  rules: [{ apiGroups: ['cairn.dev'], resources: ['pipelines'], verbs: ['get'] }],
};
const binding = {
  apiVersion: rbac,
  kind: 'ClusterRoleBinding',
  metadata: { name: 'b' },
  roleRef: roleRef('ClusterRole', 'reader'),
  subjects: [{ kind: 'User', name: 'u' }],
};

const yaml = (...objects: object[]) => objects.map((o) => stringify(o)).join('---\n');

describe('parseRbacPolicy', () => {
  it('reads several documents and Lists, skipping empty documents, User and Group taking the RBAC group by default', () => {
    const list = { apiVersion: 'v1', kind: 'List', items: [binding] };
    const policy = parseRbacPolicy(`---\n${yaml(reader, list)}---\n`);
    expect(policy.roles).toEqual([
      {
        kind: 'ClusterRole',
        name: 'reader',
        namespace: '',
        rules: [{ verbs: ['get'], apiGroups: ['cairn.dev'], resources: ['pipelines'], resourceNames: [], nonResourceURLs: [] }],
      },
    ]);
    expect(policy.bindings).toEqual([
      {
        kind: 'ClusterRoleBinding',
        name: 'b',
        namespace: '',
        roleRef: { kind: 'ClusterRole', name: 'reader' },
        subjects: [{ kind: 'User', name: 'u', namespace: '' }],
      },
    ]);
    expect(parseRbacPolicy('')).toEqual({ roles: [], bindings: [] });
  });

  it('lets a binding refer to the built-in roles', () => {
    const admins = { ...binding, roleRef: roleRef('ClusterRole', 'cluster-admin') };
    expect(parseRbacPolicy(yaml(admins), bootstrapPolicy).bindings).toHaveLength(1);
  });

  it.each<[string, string, RegExp]>([
    ['bad YAML', 'kind: [', /^document 1: /],
    ['a scalar', 'just text', /^document 1: not an object/],
    [
      'another kind',
      yaml({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }),
      /^document 1: "v1" "ConfigMap" is not a rbac.authorization.k8s.io\/v1 Role, ClusterRole/,
    ],
    ['another version', yaml({ ...reader, apiVersion: 'rbac.authorization.k8s.io/v1beta1' }), /is not a rbac.authorization.k8s.io\/v1/],
    [
      'an item of a List',
      yaml(reader, { apiVersion: 'v1', kind: 'List', items: [{ ...binding, metadata: {} }] }),
      /^document 2, items\[0\] \(ClusterRoleBinding\): metadata.name: Required value/,
    ],
    ['a Role without a namespace', yaml({ ...reader, kind: 'Role' }), /^document 1 \(Role "reader"\): metadata.namespace: Required value/],
    [
      'a ClusterRole with a namespace',
      yaml({ ...reader, metadata: { name: 'reader', namespace: 'ns' } }),
      /metadata.namespace: Forbidden: ClusterRole is cluster-scoped/,
    ],
    ['a rule without verbs', yaml({ ...reader, rules: [{ apiGroups: [''], resources: ['x'] }] }), /\(ClusterRole "reader"\): rules\[0\].verbs: Required value/],
    ['a rule without apiGroups', yaml({ ...reader, rules: [{ resources: ['x'], verbs: ['get'] }] }), /rules\[0\].apiGroups: Required value/],
    ['a rule without resources', yaml({ ...reader, rules: [{ apiGroups: [''], verbs: ['get'] }] }), /rules\[0\].resources: Required value/],
    [
      'a verb that is not a string',
      yaml({ ...reader, rules: [{ apiGroups: [''], resources: ['x'], verbs: [1] }] }),
      /rules\[0\].verbs: must be a list of strings/,
    ],
    [
      'paths and resources in one rule',
      yaml({ ...reader, rules: [{ nonResourceURLs: ['/x'], resources: ['x'], verbs: ['get'] }] }),
      /both regular resources and non-resource URLs/,
    ],
    [
      'paths in a Role',
      yaml({ ...reader, kind: 'Role', metadata: { name: 'r', namespace: 'ns' }, rules: [{ nonResourceURLs: ['/x'], verbs: ['get'] }] }),
      /namespaced rules cannot apply to non-resource URLs/,
    ],
    ['an aggregated ClusterRole', yaml({ ...reader, aggregationRule: { clusterRoleSelectors: [] } }), /aggregationRule: Unsupported/],
    [
      'a roleRef of another group',
      yaml(reader, { ...binding, roleRef: { ...roleRef('ClusterRole', 'reader'), apiGroup: '' } }),
      /roleRef.apiGroup: Unsupported value: ""/,
    ],
    [
      'a ClusterRoleBinding to a Role',
      yaml(reader, { ...binding, roleRef: roleRef('Role', 'reader') }),
      /roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"$/,
    ],
    ['a subject of another kind', yaml(reader, { ...binding, subjects: [{ kind: 'Team', name: 't' }] }), /subjects\[0\].kind: Unsupported value: "Team"/],
    ['a subject without a name', yaml(reader, { ...binding, subjects: [{ kind: 'Group' }] }), /subjects\[0\].name: Required value/],
    [
      'a User of another API group',
      yaml(reader, { ...binding, subjects: [{ kind: 'User', name: 'u', apiGroup: 'x' }] }),
      /subjects\[0\].apiGroup: Unsupported value: "x"/,
    ],
    [
      'a ServiceAccount without a namespace in a ClusterRoleBinding',
      yaml(reader, { ...binding, subjects: [{ kind: 'ServiceAccount', name: 'sa' }] }),
      /\(ClusterRoleBinding "b"\): subjects\[0\].namespace: Required value/,
    ],
    ['two objects of one name', yaml(reader, binding, reader), /^document 3: ClusterRole "reader" is defined twice/],
    ['a binding to an undefined role', yaml(binding), /^ClusterRoleBinding "b" refers to ClusterRole "reader", which is not defined/],
    [
      'a RoleBinding to a Role of another namespace',
      yaml(
        { ...reader, kind: 'Role', metadata: { name: 'reader', namespace: 'a' } },
        { ...binding, kind: 'RoleBinding', metadata: { name: 'b', namespace: 'b' }, roleRef: roleRef('Role', 'reader') },
      ),
      /RoleBinding "b\/b" refers to Role "b\/reader", which is not defined/,
    ],
  ])('refuses %s, saying where', (_, text, error) => {
    expect(() => parseRbacPolicy(text)).toThrow(error);
  });

  it('refuses a file that redefines a built-in role or binding', () => {
    expect(() => parseRbacPolicy(yaml({ ...reader, metadata: { name: 'cluster-admin' } }), bootstrapPolicy)).toThrow(
      /ClusterRole "cluster-admin" is defined twice/,
    );
    expect(() => parseRbacPolicy(yaml(reader, { ...binding, metadata: { name: 'system:discovery' } }), bootstrapPolicy)).toThrow(
      /ClusterRoleBinding "system:discovery" is defined twice/,
    );
  });
});
