/**
 * Authentication: each authenticator is asked in turn, as kube's union
 * authenticator does; the first that recognises the request names the user. A
 * request none recognises goes on as `system:anonymous`: authorization decides what
 * an anonymous request may reach (the health endpoints) and answers 401 for the rest.
 */
import type { Context, Next } from 'koa';
import { anonymousUser, type Authenticator, type UserInfo } from '../../auth/user-info.js';

/** Sets `ctx.state.user`: the authenticated user, or `system:anonymous`. */
export function withAuthentication(authenticators: readonly Authenticator[]) {
  return async (ctx: Context, next: Next): Promise<void> => {
    let user: UserInfo | undefined;
    for (const authenticator of authenticators) {
      user = await authenticator.authenticate({ headers: ctx.req.headers, socket: ctx.req.socket });
      if (user) break;
    }
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
