/**
 * Authentication: each authenticator is asked in turn, as kube's union
 * authenticator does; the first that recognises the request names the user. A
 * request none recognises goes on as `system:anonymous`: authorization decides what
 * an anonymous request may reach (the health endpoints) and answers 401 for the rest.
 * Then, as kube's filter does, the front-proxy headers are deleted, the standard ones
 * and those any authenticator reads, so nothing downstream takes them for the user.
 */
import type { Context, Next } from 'koa';
import { clearRequestHeaders, standardRequestHeaderNames } from '../../auth/request-header-authenticator.js';
import { anonymousUser, type Authenticator, type UserInfo } from '../../auth/user-info.js';

/** Sets `ctx.state.user`: the authenticated user, or `system:anonymous`. */
export function withAuthentication(authenticators: readonly Authenticator[]) {
  return async (ctx: Context, next: Next): Promise<void> => {
    let user: UserInfo | undefined;
    for (const authenticator of authenticators) {
      user = await authenticator.authenticate({ headers: ctx.req.headers, rawHeaders: ctx.req.rawHeaders, socket: ctx.req.socket });
      if (user) break;
    }
    clearRequestHeaders(ctx.req, standardRequestHeaderNames);
    for (const authenticator of authenticators) authenticator.clearCredentials?.(ctx.req);
    ctx.state.user = user ?? anonymousUser;
    await next();
  };
}

/** The user of a request that passed `withAuthentication`. */
export function userOf(ctx: Context): UserInfo {
  const user = (ctx.state as { user?: UserInfo }).user;
  if (!user) throw new Error('no user: the request did not pass withAuthentication');
  return user;
}
