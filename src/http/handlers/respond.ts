/**
 * Writing API responses: objects and lists with the negotiated serializer, warnings as
 * `Warning` headers.
 */
import type { Context } from 'koa';
import { logResponseObject } from '../filters/audit-context.js';
import { encode, type OutputFormat } from '../response/negotiation.js';
import type { Serializer } from '../serializers/serializer.js';

/**
 * Writes `value` with `status` in `format` (a negotiated format's name, or its serializer);
 * the audit event records it. A `shared` value is one storage hands to every reader, deep-frozen,
 * whose encoding is made once (see `encode`).
 */
export function respond(ctx: Context, status: number, value: unknown, format: OutputFormat | Serializer, shared = false): void {
  const { body, contentType } = encode(value, format, shared);
  logResponseObject(ctx, value);
  ctx.status = status;
  ctx.type = contentType;
  ctx.body = body;
}

/** Adds one `Warning: 299 - "…"` header per warning, as kube-apiserver does. */
export function addWarnings(ctx: Context, warnings: readonly string[]): void {
  if (warnings.length === 0) return;
  ctx.append(
    'Warning',
    warnings.map((w) => `299 - ${JSON.stringify(w)}`),
  );
}
