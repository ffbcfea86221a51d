/**
 * The authorizers a standalone Cairn composes: the bootstrap roles with a policy file's, the
 * always-allow paths, and their union.
 */
import { describe, expect, it } from 'vitest';
import { allow, deny, noOpinion, type AuthorizationAttributes, type Authorizer, type Decision } from './authorizer.js';
import { bootstrapPolicy } from './bootstrap-policy.js';
import { defaultAuthorizer } from './default-authorizer.js';
import { PathAuthorizer } from './path-authorizer.js';
import { parseRbacPolicy } from './rbac-policy.js';
import { UnionAuthorizer } from './union-authorizer.js';
import { anonymousUser, type UserInfo } from './user-info.js';
import { nonResourceAttributes, pipelineAttributes } from '../../test/support/authorization-attributes.js';

const jane: UserInfo = { name: 'jane', groups: ['devs', 'system:authenticated'] };
const admin: UserInfo = { name: 'cairn-admin', groups: ['system:masters', 'system:authenticated'] };
const prometheus: UserInfo = { name: 'prometheus', groups: ['system:monitoring', 'system:authenticated'] };

const nonResource = nonResourceAttributes;
const resource = pipelineAttributes;

describe('defaultAuthorizer', () => {
  const authorizer = defaultAuthorizer();

  it.each<[string, AuthorizationAttributes, Decision]>([
    ['anonymous health', nonResource(anonymousUser, 'get', '/healthz'), 'Allow'],
    ['anonymous health check', nonResource(anonymousUser, 'get', '/readyz/database'), 'Allow'],
    ['anonymous deeper health path', nonResource(anonymousUser, 'get', '/livez/a/b'), 'Allow'],
    ['anonymous version', nonResource(anonymousUser, 'get', '/version'), 'Allow'],
    ['anonymous version, written to', nonResource(anonymousUser, 'post', '/version'), 'NoOpinion'],
    ['anonymous health look-alike', nonResource(anonymousUser, 'get', '/healthzz'), 'NoOpinion'],
    ['anonymous discovery', nonResource(anonymousUser, 'get', '/apis'), 'NoOpinion'],
    ['anonymous metrics', nonResource(anonymousUser, 'get', '/metrics'), 'NoOpinion'],
    ['anonymous list', resource(anonymousUser, 'list'), 'NoOpinion'],
    ['authenticated discovery', nonResource(jane, 'get', '/apis'), 'Allow'],
    ['authenticated group discovery', nonResource(jane, 'get', '/apis/cairn.dev/v1'), 'Allow'],
    ['authenticated legacy discovery', nonResource(jane, 'get', '/api'), 'Allow'],
    ['authenticated OpenAPI', nonResource(jane, 'get', '/openapi/v3/apis/cairn.dev/v1'), 'Allow'],
    ['authenticated version', nonResource(jane, 'get', '/version'), 'Allow'],
    ['authenticated metrics', nonResource(jane, 'get', '/metrics'), 'NoOpinion'],
    ['authenticated list', resource(jane, 'list'), 'NoOpinion'],
    ['authenticated get', resource(jane, 'get', { name: 'p' }), 'NoOpinion'],
    ['authenticated delete', resource(jane, 'delete', { name: 'p' }), 'NoOpinion'],
    ['monitoring metrics', nonResource(prometheus, 'get', '/metrics'), 'Allow'],
    ['monitoring list', resource(prometheus, 'list'), 'NoOpinion'],
    ['admin list', resource(admin, 'list'), 'Allow'],
    ['admin delete', resource(admin, 'delete', { name: 'p' }), 'Allow'],
    ['admin log append', resource(admin, 'create', { name: 'p', subresource: 'log' }), 'Allow'],
    ['admin cluster-scoped', resource(admin, 'create', { namespace: '', resource: 'runnerclasses' }), 'Allow'],
    ['admin metrics', nonResource(admin, 'post', '/metrics'), 'Allow'],
  ])('%s: %s', async (_, attributes, decision) => {
    expect((await authorizer.authorize(attributes)).decision).toBe(decision);
  });

  it('adds the roles and bindings of a policy to the bootstrap ones', async () => {
    const policy = parseRbacPolicy(
      `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: devs-admin, namespace: ns }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin }
subjects: [{ kind: Group, name: devs }]`,
      bootstrapPolicy,
    );
    const withPolicy = defaultAuthorizer(undefined, policy);
    expect((await withPolicy.authorize(resource(jane, 'delete', { name: 'p' }))).decision).toBe('Allow');
    expect((await withPolicy.authorize(resource(jane, 'delete', { name: 'p', namespace: 'other' }))).decision).toBe('NoOpinion');
    expect((await withPolicy.authorize(resource(admin, 'delete', { name: 'p', namespace: 'other' }))).decision).toBe('Allow');
    expect((await withPolicy.authorize(nonResource(anonymousUser, 'get', '/healthz'))).decision).toBe('Allow');
  });
});

describe('PathAuthorizer', () => {
  it('allows exact paths and prefixes ending in *, for non-resource requests only', () => {
    const authorizer = new PathAuthorizer(['/exact', '/prefix/*']);
    expect(authorizer.authorize(nonResource(anonymousUser, 'get', '/exact')).decision).toBe('Allow');
    expect(authorizer.authorize(nonResource(anonymousUser, 'get', '/exact/more')).decision).toBe('NoOpinion');
    expect(authorizer.authorize(nonResource(anonymousUser, 'get', '/prefix/a')).decision).toBe('Allow');
    expect(authorizer.authorize(nonResource(anonymousUser, 'get', '/prefix')).decision).toBe('NoOpinion');
    expect(authorizer.authorize(resource(anonymousUser, 'get', { path: '/exact' })).decision).toBe('NoOpinion');
  });

  it('refuses a * anywhere but at the end', () => {
    expect(() => new PathAuthorizer(['/a/*/b'])).toThrow(/trailing/);
  });
});

describe('UnionAuthorizer', () => {
  const fixed = (result: ReturnType<typeof allow>): Authorizer => ({ authorize: () => result });

  it('takes the first Allow or Deny, and joins the reasons when nobody has an opinion', async () => {
    const attributes = resource(jane, 'get');
    expect(await new UnionAuthorizer([fixed(noOpinion('a')), fixed(deny('no')), fixed(allow())]).authorize(attributes)).toEqual(deny('no'));
    expect(await new UnionAuthorizer([fixed(noOpinion()), fixed(allow('yes')), fixed(deny())]).authorize(attributes)).toEqual(allow('yes'));
    expect(await new UnionAuthorizer([fixed(noOpinion('a')), fixed(noOpinion('b'))]).authorize(attributes)).toEqual(noOpinion('a\nb'));
    expect((await new UnionAuthorizer([]).authorize(attributes)).decision).toBe('NoOpinion');
  });
});
