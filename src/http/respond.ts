/**
 * Writing API responses: objects and lists in the negotiated format, warnings as
 * `Warning` headers.
 */
import type { Context } from 'koa';
import { encode, type OutputFormat } from './negotiation.js';

/** Writes `value` with `status` in `format`. */
export function respond(ctx: Context, status: number, value: unknown, format: OutputFormat): void {
  const { body, contentType } = encode(value, format);
  ctx.status = status;
  ctx.type = contentType;
  ctx.body = body;
}

/** Adds one `Warning: 299 - "…"` header per warning, as kube-apiserver does. */
export function addWarnings(ctx: Context, warnings: readonly string[]): void {
  if (warnings.length === 0) return;
  ctx.set(
    'Warning',
    warnings.map((w) => `299 - ${JSON.stringify(w)}`),
  );
}
