/**
 * Authentication middleware: every request but the health and version endpoints
 * must be authenticated, or it gets a 401 Status.
 */
import type { Context, Next } from 'koa';
import type { Authenticator, UserInfo } from '../auth/user-info.js';
import { unauthorized } from '../machinery/errors.js';

const anonymousPaths = /^\/(healthz|livez|readyz)(\/[^/]*)?$|^\/version\/?$/;

/** Tries each authenticator in turn; sets `ctx.state.user`. */
export function authenticationMiddleware(authenticators: readonly Authenticator[]) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (!anonymousPaths.test(ctx.path)) {
      let user: UserInfo | undefined;
      for (const authenticator of authenticators) {
        user = await authenticator.authenticate({ headers: ctx.req.headers, socket: ctx.req.socket });
        if (user) break;
      }
      if (!user) throw unauthorized();
      ctx.state.user = user;
    }
    await next();
  };
}
