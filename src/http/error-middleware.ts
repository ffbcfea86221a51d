/**
 * The first middleware: every error becomes a metav1.Status body. Koa's own
 * text/plain error handler never answers a request.
 */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { internal, pathNotFound } from '../machinery/errors.js';
import { isStatusError, type StatusError } from '../machinery/status.js';

function writeStatus(ctx: Context, error: StatusError): void {
  ctx.status = error.status.code;
  ctx.set(error.headers as Record<string, string>);
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(error.status);
}

/** Catches everything below it; unknown errors are logged and answered as a 500 without their message. */
export function errorMiddleware(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined && ctx.respond !== false) writeStatus(ctx, pathNotFound());
    } catch (error) {
      if (ctx.respond === false || ctx.headerSent) {
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
