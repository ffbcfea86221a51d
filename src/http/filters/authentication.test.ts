/**
 * The authentication filter: the front-proxy headers, and whatever each authenticator reads,
 * are deleted after authentication, whoever sent them.
 */
import { createServer, request, type IncomingHttpHeaders, type OutgoingHttpHeaders, type Server } from 'node:http';
import Koa from 'koa';
import { afterAll, describe, expect, it } from 'vitest';
import { clearRequestHeaders, RequestHeaderAuthenticator } from '../../auth/request-header-authenticator.js';
import type { Authenticator, UserInfo } from '../../auth/user-info.js';
import { userOf, withAuthentication } from './authentication.js';

/** What the middleware after authentication saw of the request. */
interface Downstream {
  readonly user: UserInfo;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: readonly string[];
}

/** Everyone is bob, who has a token header the authenticator clears. */
const bob: Authenticator = {
  authenticate: () => ({ name: 'bob', groups: ['system:authenticated'] }),
  clearCredentials: (request) => clearRequestHeaders(request, { usernameHeaders: ['X-Bob-Token'], uidHeaders: [], groupHeaders: [], extraHeaderPrefixes: [] }),
};

/** A front proxy configured with headers of its own besides the standard ones (no CA: it never authenticates over plain HTTP). */
const customFrontProxy = new RequestHeaderAuthenticator({
  clientCaPems: [],
  allowedNames: [],
  usernameHeaders: ['X-Proxy-User'],
  uidHeaders: ['X-Remote-Uid'],
  groupHeaders: ['X-Proxy-Group'],
  extraHeaderPrefixes: ['X-Proxy-Extra-'],
});

function appWith(authenticators: readonly Authenticator[], seen: (downstream: Downstream) => void): Koa {
  const app = new Koa();
  app.use(withAuthentication(authenticators));
  app.use((ctx) => {
    seen({ user: userOf(ctx), headers: { ...ctx.req.headers }, rawHeaders: [...ctx.req.rawHeaders] });
    ctx.status = 204;
  });
  return app;
}

describe('withAuthentication', () => {
  let downstream: Downstream | undefined;
  const servers: Server[] = [];

  async function serve(authenticators: readonly Authenticator[]): Promise<number> {
    const server = createServer(appWith(authenticators, (d) => (downstream = d)).callback());
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as { port: number }).port;
  }

  function send(port: number, headers: OutgoingHttpHeaders): Promise<Downstream> {
    downstream = undefined;
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, headers, agent: false }, (res) => {
        res.resume();
        res.on('end', () => (downstream ? resolve(downstream) : reject(new Error('the request never got past authentication'))));
      });
      req.on('error', reject);
      req.end();
    });
  }

  const spoofed: OutgoingHttpHeaders = {
    'X-Remote-User': 'alice',
    'X-Remote-Uid': 'u-1',
    'X-Remote-Group': ['system:masters', 'devs'],
    'X-Remote-Extra-Scopes': 'all',
    'X-Proxy-User': 'carol',
    'X-Proxy-Group': 'system:masters',
    'X-Proxy-Extra-Acme.com%2Fproject': 'x',
    'X-Bob-Token': 'secret',
    Accept: 'application/json',
  };

  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('deletes the standard front-proxy headers after authentication, whoever the request is, and keeps the rest', async () => {
    const seen = await send(await serve([]), spoofed);
    expect(seen.user.name).toBe('system:anonymous');
    expect(Object.keys(seen.headers).filter((name) => name.startsWith('x-remote-'))).toEqual([]);
    expect(seen.rawHeaders.filter((_, i) => i % 2 === 0 && /^x-remote-/i.test(seen.rawHeaders[i]))).toEqual([]);
    expect(seen.headers).toMatchObject({ accept: 'application/json', 'x-proxy-user': 'carol', 'x-bob-token': 'secret' });
  });

  it('also deletes what each authenticator reads, the configured front-proxy headers included', async () => {
    const seen = await send(await serve([customFrontProxy, bob]), spoofed);
    expect(seen.user.name).toBe('bob');
    const left = Object.keys(seen.headers);
    expect(left).toContain('accept');
    expect(left.filter((name) => /^x-(remote|proxy|bob)-/.test(name))).toEqual([]);
    expect(seen.rawHeaders.filter((_, i) => i % 2 === 0 && /^x-(remote|proxy|bob)-/i.test(seen.rawHeaders[i]))).toEqual([]);
  });

  it('reads repeated header lines one by one', async () => {
    let raw: readonly string[] = [];
    const port = await serve([{ authenticate: ({ rawHeaders }) => ((raw = [...rawHeaders]), undefined) }]);
    await send(port, { 'X-Remote-Group': ['a, b', 'c'] });
    expect(raw.filter((_, i) => i % 2 === 1 && /^x-remote-group$/i.test(raw[i - 1]))).toEqual(['a, b', 'c']);
  });
});
