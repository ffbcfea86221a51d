/**
 * The SubjectAccessReview sent for a request, its verdicts kept for their TTLs, a failure
 * answered 500 rather than denied, and what needs no review.
 */
import { describe, expect, it } from 'vitest';
import type { AuthorizationAttributes } from './authorizer.js';
import { delegatingAuthorizer } from './delegating-authorizer.js';
import type { RestResponse } from '../machinery/kubeclient/rest-client.js';
import { subjectAccessReviewSpec, SubjectAccessReviewAuthorizer } from './subject-access-review-authorizer.js';

const jane = { name: 'jane', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a'] } };

const get: AuthorizationAttributes = {
  user: jane,
  verb: 'get',
  isResourceRequest: true,
  path: '/apis/cairn.dev/v1/namespaces/ns/pipelines/p/status',
  namespace: 'ns',
  apiGroup: 'cairn.dev',
  apiVersion: 'v1',
  resource: 'pipelines',
  subresource: 'status',
  name: 'p',
};
const health: AuthorizationAttributes = {
  ...get,
  isResourceRequest: false,
  path: '/healthz',
  namespace: '',
  apiGroup: '',
  apiVersion: '',
  resource: '',
  subresource: '',
  name: '',
};

/** A client answering every review with `status`, keeping the specs it was sent. */
function reviewer(status: () => Record<string, unknown> | Error) {
  const specs: unknown[] = [];
  return {
    specs,
    request: async (_method: string, _path: string, body?: unknown): Promise<RestResponse> => {
      specs.push((body as { spec: unknown }).spec);
      const answer = status();
      if (answer instanceof Error) throw answer;
      return { status: 201, body: { status: answer } };
    },
  };
}

describe('subjectAccessReviewSpec', () => {
  it('carries the attributes as kube’s webhook authorizer does', () => {
    expect(subjectAccessReviewSpec(get)).toEqual({
      resourceAttributes: { namespace: 'ns', verb: 'get', group: 'cairn.dev', version: 'v1', resource: 'pipelines', subresource: 'status', name: 'p' },
      user: 'jane',
      uid: 'u-1',
      groups: ['devs', 'system:authenticated'],
      extra: { scopes: ['a'] },
    });
    expect(subjectAccessReviewSpec({ ...health, path: '/version', verb: 'get' })).toEqual({
      nonResourceAttributes: { path: '/version', verb: 'get' },
      user: 'jane',
      uid: 'u-1',
      groups: ['devs', 'system:authenticated'],
      extra: { scopes: ['a'] },
    });
  });
});

describe('SubjectAccessReviewAuthorizer', () => {
  it('maps allowed, denied and neither to Allow, Deny and NoOpinion with the reason', async () => {
    for (const [status, decision] of [
      [{ allowed: true, reason: 'RBAC: allowed' }, 'Allow'],
      [{ allowed: false, denied: true, reason: 'no' }, 'Deny'],
      [{ allowed: false, reason: 'nobody said yes' }, 'NoOpinion'],
    ] as const) {
      const authorizer = new SubjectAccessReviewAuthorizer({ client: reviewer(() => status), authorizedTtlMs: 0, unauthorizedTtlMs: 0 });
      expect(await authorizer.authorize(get)).toEqual({ decision, reason: status.reason });
    }
  });

  it('remembers allowed and refused verdicts for their own TTLs', async () => {
    let allowed = false;
    const client = reviewer(() => ({ allowed }));
    const authorizer = new SubjectAccessReviewAuthorizer({ client, authorizedTtlMs: 60_000, unauthorizedTtlMs: 50 });
    expect((await authorizer.authorize(get)).decision).toBe('NoOpinion');
    allowed = true;
    expect((await authorizer.authorize(get)).decision).toBe('NoOpinion');
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((await authorizer.authorize(get)).decision).toBe('Allow');
    allowed = false;
    expect((await authorizer.authorize(get)).decision).toBe('Allow');
    expect(client.specs).toHaveLength(2);
    // Another request is another review.
    await authorizer.authorize({ ...get, verb: 'delete' });
    expect(client.specs).toHaveLength(3);
  });

  it('fails with 500, not a denial, when the review cannot be made', async () => {
    const authorizer = new SubjectAccessReviewAuthorizer({ client: reviewer(() => new Error('timeout')), authorizedTtlMs: 0, unauthorizedTtlMs: 0 });
    await expect(authorizer.authorize(get)).rejects.toMatchObject({ code: 500 });
  });
});

describe('delegatingAuthorizer', () => {
  it('allows the always-allow paths and system:masters without a review, and asks for the rest', async () => {
    const client = reviewer(() => ({ allowed: false }));
    const authorizer = delegatingAuthorizer({ client, authorizedTtlMs: 0, unauthorizedTtlMs: 0 });
    expect((await authorizer.authorize(health)).decision).toBe('Allow');
    expect((await authorizer.authorize({ ...health, path: '/healthz/ping' })).decision).toBe('NoOpinion');
    expect((await authorizer.authorize({ ...get, user: { name: 'admin', groups: ['system:masters'] } })).decision).toBe('Allow');
    expect((await authorizer.authorize(get)).decision).toBe('NoOpinion');
    expect(client.specs).toHaveLength(2);
  });
});
