/**
 * kube-apiserver's `--request-timeout`, as its `WithRequestDeadline` and
 * `WithTimeoutForNonLongRunningRequests` filters apply it: a request that is not
 * long-running gets the server's timeout, or the shorter one its `timeout` query
 * parameter asks for (a Go duration; `0` or more than the server's is the server's; a
 * malformed one is a 400). When it runs out, the client gets a 504 Timeout Status at
 * once, and the work still in flight can no longer write to the response: its writes
 * throw, as Go's timeout writer returns `ErrHandlerTimeout`. A response already started
 * is cut instead (kube resets the stream), so the client sees it incomplete.
 */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { parseGoDuration } from '../../machinery/duration.js';
import { badRequest } from '../../machinery/errors.js';
import { failureStatus } from '../../machinery/status.js';
import { isLongRunning } from '../request/request-info.js';
import { statusSerializer } from '../response/negotiation.js';
import { requestInfoOf } from './request-info.js';

/** kube-apiserver's default `--request-timeout` (1m0s). */
export const defaultRequestTimeoutMs = 60_000;

/**
 * The Status kube's REST handlers answer when the deadline passes while the work is in
 * flight (`finisher.go`); `retryAfterSeconds` 0 leaves the details empty.
 */
const timeoutStatus = failureStatus(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {});

/** The timeout of one request: the server's, or the shorter one it asks for with `?timeout=`. */
function requestTimeoutOf(ctx: Context, serverTimeoutMs: number): number {
  const asked = new URLSearchParams(ctx.querystring).get('timeout');
  if (!asked) return serverTimeoutMs;
  let ms: number;
  try {
    ms = parseGoDuration(asked);
  } catch (error) {
    throw badRequest(`invalid timeout specified in the request URL - ${(error as Error).message}`);
  }
  return ms > 0 && ms < serverTimeoutMs ? ms : serverTimeoutMs;
}

/** The response methods that write; after a timeout they throw for the work still in flight. */
const writingMethods = ['writeHead', 'setHeader', 'appendHeader', 'removeHeader', 'flushHeaders', 'write', 'end'] as const;

/** Answers the 504 (or cuts a started response) and closes the response to whoever still holds it. */
function timeOut(ctx: Context): void {
  const res = ctx.res;
  if (res.headersSent) {
    // HTTP/2 resets the stream alone, as INTERNAL_ERROR (without an error Node would first wait to send what is
    // queued, for a client not reading: forever); HTTP/1.1 closes the connection. Go does either on ErrAbortHandler.
    res.destroy(ctx.req.httpVersionMajor >= 2 ? new Error('the request timed out after its response started') : undefined);
  } else {
    const serializer = statusSerializer(ctx.get('Accept'));
    const body = serializer.encode(timeoutStatus);
    // What the handler had set (its Content-Type, a Content-Length) does not describe this body.
    for (const name of res.getHeaderNames()) if (name.startsWith('content-')) res.removeHeader(name);
    res.statusCode = 504;
    res.setHeader('Content-Type', serializer.mediaType);
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  }
  ctx.respond = false;
  const closed = (): never => {
    throw new Error('the request timed out: its response was already sent');
  };
  for (const method of writingMethods) (res as unknown as Record<string, unknown>)[method] = closed;
}

/** Times out requests that are not long-running after `requestTimeoutMs`, or their own shorter `timeout`. */
export function withRequestTimeout(requestTimeoutMs: number, logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (isLongRunning(requestInfoOf(ctx))) {
      await next();
      return;
    }
    const timeoutMs = requestTimeoutOf(ctx, requestTimeoutMs);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const work = next().then(() => 'done' as const);
    try {
      if ((await Promise.race([work, deadline])) === 'done') return;
    } finally {
      clearTimeout(timer);
    }
    timeOut(ctx);
    // As kube's "post-timeout activity": the work goes on to its end, and only the log hears of it.
    work.then(
      () => logger.debug({ method: ctx.method, path: ctx.path }, 'post-timeout activity: the request completed after its timeout'),
      (error: unknown) => logger.debug({ err: error, method: ctx.method, path: ctx.path }, 'post-timeout activity: the request failed after its timeout'),
    );
  };
}
