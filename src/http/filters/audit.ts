/**
 * The audit filter, as kube's `WithAuditInit` and `WithAudit`: each request gets an
 * audit ID (the `Audit-Id` response header), and the audit backend is told when the
 * request was received, when a streamed response (watch, log follow: `ctx.respond =
 * false`) sent its headers, and when the response completed, with its code.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Context, Next } from 'koa';
import type { AuditBackend, AuditEvent, AuditStage } from '../../auth/audit.js';
import { statusCodeOf } from './error-middleware.js';
import type { RequestInfo } from '../request/request-info.js';
import { userOf } from './authentication.js';
import { requestInfoOf } from './request-info.js';

/** kube's MicroTime: RFC 3339 with microseconds. */
function microTime(date: Date): string {
  return date.toISOString().replace('Z', '000Z');
}

function objectRefOf(info: RequestInfo): AuditEvent['objectRef'] {
  if (!info.isResourceRequest) return undefined;
  return {
    resource: info.resource,
    apiVersion: info.apiVersion,
    ...(info.namespace ? { namespace: info.namespace } : {}),
    ...(info.name ? { name: info.name } : {}),
    ...(info.apiGroup ? { apiGroup: info.apiGroup } : {}),
    ...(info.subresource ? { subresource: info.subresource } : {}),
  };
}

/** Sets the `Audit-Id` header and `ctx.state.auditID`, and reports each stage of the request to `backend`. */
export function withAudit(backend: AuditBackend) {
  return async (ctx: Context, next: Next): Promise<void> => {
    // An ID the aggregator already gave the request is kept, so both servers' records join up.
    const auditID = ctx.get('Audit-Id') || randomUUID();
    ctx.state.auditID = auditID;
    ctx.set('Audit-Id', auditID);
    const info = requestInfoOf(ctx);
    const userAgent = ctx.get('User-Agent');
    const received = microTime(new Date());
    const event = (stage: AuditStage, code?: number): AuditEvent => ({
      auditID,
      stage,
      requestURI: ctx.originalUrl,
      verb: info.verb,
      user: userOf(ctx),
      sourceIPs: [ctx.ip],
      ...(userAgent ? { userAgent } : {}),
      ...(info.isResourceRequest ? { objectRef: objectRefOf(info) } : {}),
      ...(code !== undefined ? { responseStatus: { code } } : {}),
      requestReceivedTimestamp: received,
      stageTimestamp: stage === 'RequestReceived' ? received : microTime(new Date()),
    });
    backend.processEvents(event('RequestReceived'));
    reportStreamStart(ctx, () => backend.processEvents(event('ResponseStarted', ctx.res.statusCode)));
    let failure: unknown;
    try {
      await next();
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      backend.processEvents(event('ResponseComplete', statusCodeOf(ctx, failure)));
    }
  };
}

/**
 * Calls `started` when a response the handler streams itself (`ctx.respond = false`)
 * sends its headers. Like kube's audit response writer, it wraps the one call every
 * first write goes through: `writeHead` (HTTP/1.1 and HTTP/2 compatibility responses alike).
 */
function reportStreamStart(ctx: Context, started: () => void): void {
  const res = ctx.res;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back, and called with the response as `this`
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    res.writeHead = writeHead;
    if (ctx.respond === false) started();
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  };
}
