/**
 * The user a front proxy's `X-Remote-*` headers name, read as kube reads them and only from a
 * trusted proxy, and those headers cleared from every request.
 */
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  clearRequestHeaders,
  RequestHeaderAuthenticator,
  standardRequestHeaderNames,
  unescapeExtraKey,
  userFromRequestHeaders,
  type RequestHeaderNames,
} from './request-header-authenticator.js';

/** Header lines as Node's `rawHeaders` holds them, from [name, value] pairs. */
const raw = (...lines: [string, string][]): string[] => lines.flat();

describe('userFromRequestHeaders, as kube reads the front-proxy headers', () => {
  const twoOfEach: RequestHeaderNames = {
    usernameHeaders: ['X-Remote-User', 'X-Other-User'],
    uidHeaders: ['X-Remote-Uid', 'X-Other-Uid'],
    groupHeaders: ['X-Remote-Group', 'X-Other-Group'],
    extraHeaderPrefixes: ['X-Remote-Extra-', 'X-Other-Extra-'],
  };

  it.each([
    { name: 'no username header: not a front-proxy request', lines: raw(['X-Remote-Group', 'devs']), user: undefined },
    { name: 'an empty username header counts as none', lines: raw(['X-Remote-User', '']), user: undefined },
    { name: 'the user, in system:authenticated', lines: raw(['X-Remote-User', 'alice']), user: { name: 'alice', groups: ['system:authenticated'] } },
    {
      name: 'header names match without case',
      lines: raw(['x-remote-user', 'alice'], ['X-REMOTE-GROUP', 'devs']),
      user: { name: 'alice', groups: ['devs', 'system:authenticated'] },
    },
    {
      name: 'one group per line, several lines; a comma is part of the group, empty lines are dropped',
      lines: raw(
        ['X-Remote-User', 'alice'],
        ['X-Remote-Group', 'devs'],
        ['X-Remote-Group', 'a, b'],
        ['X-Remote-Group', ''],
        ['X-Remote-Group', 'system:masters'],
      ),
      user: { name: 'alice', groups: ['devs', 'a, b', 'system:masters', 'system:authenticated'] },
    },
    {
      name: 'the first username line wins (Header.Get)',
      lines: raw(['X-Remote-User', 'alice'], ['X-Remote-User', 'bob']),
      user: { name: 'alice', groups: ['system:authenticated'] },
    },
    {
      name: 'an empty first line hides the next, as Header.Get does',
      lines: raw(['X-Remote-User', ''], ['X-Remote-User', 'bob']),
      user: undefined,
    },
    {
      name: 'the uid',
      lines: raw(['X-Remote-User', 'alice'], ['X-Remote-Uid', 'c0ffee']),
      user: { name: 'alice', uid: 'c0ffee', groups: ['system:authenticated'] },
    },
    {
      name: 'system:authenticated is not added twice',
      lines: raw(['X-Remote-User', 'alice'], ['X-Remote-Group', 'system:authenticated']),
      user: { name: 'alice', groups: ['system:authenticated'] },
    },
    {
      name: 'system:anonymous and system:unauthenticated stay unauthenticated (kube AuthenticatedGroupAdder)',
      lines: raw(['X-Remote-User', 'system:anonymous'], ['X-Remote-Group', 'system:unauthenticated']),
      user: { name: 'system:anonymous', groups: ['system:unauthenticated'] },
    },
  ])('$name', ({ lines, user }) => {
    expect(userFromRequestHeaders(lines, standardRequestHeaderNames)).toEqual(user);
  });

  it('reads extras under lower-cased, %-decoded keys, one value per line', () => {
    const user = userFromRequestHeaders(
      raw(
        ['X-Remote-User', 'alice'],
        ['X-Remote-Extra-Acme.com%2Fproject', 'x'],
        ['X-Remote-Extra-Authentication.kubernetes.io%2Fpod-Name', 'web-0'],
        ['X-Remote-Extra-Scopes', 'read'],
        ['x-remote-extra-scopes', 'write, admin'],
        ['X-Remote-Extra-Scopes', ''],
      ),
      standardRequestHeaderNames,
    );
    expect(user?.extra).toEqual({
      'acme.com/project': ['x'],
      'authentication.kubernetes.io/pod-name': ['web-0'],
      scopes: ['read', 'write, admin', ''],
    });
  });

  it('has no extra when no header carries one', () => {
    expect(userFromRequestHeaders(raw(['X-Remote-User', 'alice']), standardRequestHeaderNames)).not.toHaveProperty('extra');
  });

  it('reads every configured header, each list in its order', () => {
    const user = userFromRequestHeaders(
      raw(
        ['X-Other-Group', 'second'],
        ['X-Other-User', 'bob'],
        ['X-Remote-User', ''],
        ['X-Other-Uid', 'u-2'],
        ['X-Remote-Group', 'first'],
        ['X-Other-Extra-K', 'from-other'],
        ['X-Remote-Extra-K', 'from-remote'],
      ),
      twoOfEach,
    );
    expect(user).toEqual({ name: 'bob', uid: 'u-2', groups: ['first', 'second', 'system:authenticated'], extra: { k: ['from-remote', 'from-other'] } });
  });
});

describe('unescapeExtraKey, as Go url.PathUnescape', () => {
  it.each([
    ['acme.com%2fproject', 'acme.com/project'],
    ['a%25b', 'a%b'],
    ['a+b', 'a+b'],
    ['caf%c3%a9', 'café'],
    ['%ff', '\ufffd'],
    ['bad%zzkey', 'bad%zzkey'],
    ['trailing%2', 'trailing%2'],
    ['trailing%', 'trailing%'],
    ['', ''],
  ])('%s → %s', (encoded, key) => {
    expect(unescapeExtraKey(encoded)).toBe(key);
  });
});

describe('clearRequestHeaders', () => {
  it('deletes the named headers and every extra, from headers and rawHeaders alike, and keeps the rest', () => {
    const request = {
      headers: { 'x-remote-user': 'alice', 'x-remote-group': 'devs, ops', 'x-remote-extra-scopes': 'read', 'x-remote-uid': 'u', accept: 'application/json' },
      rawHeaders: raw(
        ['X-Remote-User', 'alice'],
        ['Accept', 'application/json'],
        ['X-Remote-Group', 'devs'],
        ['x-remote-group', 'ops'],
        ['X-Remote-Extra-Scopes', 'read'],
        ['X-Remote-Uid', 'u'],
      ),
    };
    clearRequestHeaders(request, standardRequestHeaderNames);
    expect(request.headers).toEqual({ accept: 'application/json' });
    expect(request.rawHeaders).toEqual(['Accept', 'application/json']);
  });
});

describe('RequestHeaderAuthenticator', () => {
  const options = { clientCaPems: [], allowedNames: [], ...standardRequestHeaderNames };

  it('refuses an empty header name, as kube does', () => {
    expect(() => new RequestHeaderAuthenticator({ ...options, groupHeaders: ['X-Remote-Group', ' '] })).toThrow(/empty header name/);
  });

  it('never trusts headers that came without TLS', () => {
    const authenticator = new RequestHeaderAuthenticator(options);
    const rawHeaders = raw(['X-Remote-User', 'alice'], ['X-Remote-Group', 'system:masters']);
    expect(authenticator.authenticate({ headers: { 'x-remote-user': 'alice' }, rawHeaders, socket: new Socket() })).toBeUndefined();
  });
});
