/**
 * The first filter: every request gets its RequestInfo on `ctx.state.requestInfo`
 * before anyone looks at it, as kube's `WithRequestInfo`; a path that cannot be read
 * is a 400 Status.
 */
import type { Context, Next } from 'koa';
import { newRequestInfo, type RequestInfo, type SubresourceNames } from '../request/request-info.js';

/** Sets `ctx.state.requestInfo`, reading the served `subresources`' names. */
export function withRequestInfo(subresources: SubresourceNames) {
  // Not async: what it does is done before the filters after it run, and their promise is its own.
  return (ctx: Context, next: Next): Promise<void> => {
    ctx.state.requestInfo = newRequestInfo(ctx.method, ctx.path, new URLSearchParams(ctx.querystring), subresources);
    return next() as Promise<void>;
  };
}

/** The RequestInfo of a request that passed `withRequestInfo`. */
export function requestInfoOf(ctx: Context): RequestInfo {
  const info = (ctx.state as { requestInfo?: RequestInfo }).requestInfo;
  if (!info) throw new Error('no RequestInfo: the request did not pass withRequestInfo');
  return info;
}
