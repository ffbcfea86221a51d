/**
 * Every error becomes a metav1.Status body, in the serializer the client's Accept
 * header negotiates (JSON when none fits), as kube's `ErrorNegotiated` writes it.
 * Koa's own text/plain error handler never answers a request.
 */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { internal, pathNotFound } from '../../machinery/errors.js';
import { isStatusError, type StatusError } from '../../machinery/status.js';
import { statusSerializer } from '../response/negotiation.js';

function writeStatus(ctx: Context, error: StatusError): void {
  const serializer = statusSerializer(ctx.get('Accept'));
  ctx.status = error.status.code;
  ctx.set(error.headers as Record<string, string>);
  ctx.type = serializer.mediaType;
  ctx.body = serializer.encode(error.status);
}

/** Whether the response went out before `error` was thrown: it can no longer become a Status. */
export function responseStarted(ctx: Context): boolean {
  return ctx.respond === false || ctx.headerSent;
}

/**
 * The status code a request is answered with once the error middleware has seen
 * `error` (or nothing): for filters inside it that must report the outcome (audit).
 */
export function statusCodeOf(ctx: Context, error?: unknown): number {
  if (error === undefined || responseStarted(ctx)) return ctx.status;
  return isStatusError(error) ? error.code : 500;
}

/**
 * Whether `error` is one the error middleware answers as an unexpected 500: not a Status,
 * thrown before the response started (kube's handlers would have panicked).
 */
export function isUnexpectedError(ctx: Context, error: unknown): boolean {
  return error !== undefined && !responseStarted(ctx) && !isStatusError(error);
}

/** Catches everything below it; unknown errors are logged and answered as a 500 without their message. */
export function errorMiddleware(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined && ctx.respond !== false) writeStatus(ctx, pathNotFound());
    } catch (error) {
      if (responseStarted(ctx)) {
        logger.error({ err: error, path: ctx.path }, 'error after the response started');
        return;
      }
      if (isStatusError(error)) {
        writeStatus(ctx, error);
        return;
      }
      logger.error({ err: error, method: ctx.method, path: ctx.path }, 'unexpected error');
      writeStatus(ctx, internal());
    }
  };
}
