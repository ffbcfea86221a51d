/**
 * Reading a request's bearer token as kube does, and asking each token authenticator in turn.
 */
import { describe, expect, it } from 'vitest';
import { BearerTokenAuthenticator, bearerToken, type TokenAuthenticator } from './bearer-token-authenticator.js';
import type { AuthenticationRequest, UserInfo } from './user-info.js';

const withAuthorization = (authorization?: string): AuthenticationRequest => ({
  headers: authorization === undefined ? {} : { authorization },
  rawHeaders: authorization === undefined ? [] : ['Authorization', authorization],
  socket: {} as never,
});

/** Knows one token, and counts what it was asked. */
function knowing(token: string, user: UserInfo): TokenAuthenticator & { asked: string[] } {
  const asked: string[] = [];
  return { asked, authenticateToken: (t) => (asked.push(t), t === token ? user : undefined) };
}

const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };
const bob: UserInfo = { name: 'bob', groups: ['system:authenticated'] };

describe('bearerToken', () => {
  it('reads kube’s Authorization: Bearer <token>, the scheme without case', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('  bearer abc  ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken('Bearer  abc')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});

describe('BearerTokenAuthenticator', () => {
  it('asks each token authenticator in turn; the first that knows the token names the user', async () => {
    const first = knowing('a', alice);
    const second = knowing('b', bob);
    const authenticator = new BearerTokenAuthenticator([first, second]);
    expect(await authenticator.authenticate(withAuthorization('Bearer a'))).toEqual(alice);
    expect(await authenticator.authenticate(withAuthorization('Bearer b'))).toEqual(bob);
    expect(first.asked).toEqual(['a', 'b']);
    expect(second.asked).toEqual(['b']);
  });

  it('has nothing to say of a request without a bearer token, and refuses a token nobody knows with 401', async () => {
    const authenticator = new BearerTokenAuthenticator([knowing('a', alice)]);
    expect(await authenticator.authenticate(withAuthorization())).toBeUndefined();
    expect(await authenticator.authenticate(withAuthorization('Basic YTpi'))).toBeUndefined();
    await expect(authenticator.authenticate(withAuthorization('Bearer nobody'))).rejects.toMatchObject({ code: 401, reason: 'Unauthorized' });
  });
});
