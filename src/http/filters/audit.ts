/**
 * The audit filter, as kube's `WithAuditInit` and `WithAudit`: each request gets an
 * audit ID (the `Audit-Id` response header); the policy decides from the request's
 * authorization attributes at which level it is audited, and the backend is told when
 * the request was received, when a long-running response (watch, log) streamed by its
 * handler (`ctx.respond = false`) sent its headers, and when the response completed,
 * with its code — or, for an unexpected error (kube's panic), the `Panic` stage instead.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { Context, Next } from 'koa';
import type { AuditBackend, AuditEvent, AuditPolicyRuleEvaluator, AuditStage, RequestAuditConfig } from '../../audit/audit.js';
import type { UserInfo } from '../../auth/user-info.js';
import { isStatusError } from '../../machinery/status.js';
import { isLongRunning, type RequestInfo } from '../request/request-info.js';
import { RequestAudit } from './audit-context.js';
import { userOf } from './authentication.js';
import { authorizationAttributes } from './authorization.js';
import { isUnexpectedError, responseStarted, statusCodeOf } from './error-middleware.js';
import { requestInfoOf } from './request-info.js';

/** kube's MicroTime: RFC 3339 with microseconds, of now. */
function microTimeNow(): string {
  const ms = performance.timeOrigin + performance.now();
  const whole = Math.floor(ms);
  const micros = String(Math.floor((ms - whole) * 1000)).padStart(3, '0');
  return new Date(whole).toISOString().replace('Z', `${micros}Z`);
}

function objectRefOf(info: RequestInfo): AuditEvent['objectRef'] {
  if (!info.isResourceRequest) return undefined;
  return {
    resource: info.resource,
    ...(info.namespace ? { namespace: info.namespace } : {}),
    ...(info.name ? { name: info.name } : {}),
    ...(info.apiGroup ? { apiGroup: info.apiGroup } : {}),
    apiVersion: info.apiVersion,
    ...(info.subresource ? { subresource: info.subresource } : {}),
  };
}

/** An IPv4 address as Go prints it, not IPv4-mapped IPv6 as Node reports it. */
function plainIp(ip: string): string {
  return ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
}

/** kube's `utilnet.SourceIPs`: the X-Forwarded-For chain, X-Real-Ip if not in it, then the peer unless it is the chain's last. */
function sourceIPs(ctx: Context): string[] {
  const ips = ctx
    .get('X-Forwarded-For')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => isIP(part) !== 0)
    .map(plainIp);
  const realIp = ctx.get('X-Real-Ip').trim();
  if (isIP(realIp) !== 0 && !ips.includes(plainIp(realIp))) ips.push(plainIp(realIp));
  const peer = ctx.req.socket.remoteAddress;
  if (peer !== undefined && ips.at(-1) !== plainIp(peer)) ips.push(plainIp(peer));
  return ips;
}

// kube truncates longer User-Agent headers so.
const maxUserAgentLength = 1024;

/**
 * Sets the `Audit-Id` header and `ctx.state.auditID`; for a request the policy audits,
 * `ctx.state.audit` (see audit-context.ts) and each stage of the request to `backend`.
 */
export function withAudit(backend: AuditBackend, policy: AuditPolicyRuleEvaluator) {
  // Not async: a request the policy does not audit (most) is done with before the filters after it run.
  return (ctx: Context, next: Next): Promise<void> => {
    // An ID the aggregator already gave the request is kept, so both servers' records join up.
    const auditID = ctx.get('Audit-Id') || randomUUID();
    ctx.state.auditID = auditID;
    ctx.set('Audit-Id', auditID);
    const info = requestInfoOf(ctx);
    const user = userOf(ctx);
    const config = policy.evaluatePolicyRule(authorizationAttributes(user, info));
    if (config.level === 'None') return next() as Promise<void>;
    return audited(ctx, next, backend, config, auditID, info, user);
  };
}

/** Runs an audited request, telling `backend` each of its stages. */
async function audited(
  ctx: Context,
  next: Next,
  backend: AuditBackend,
  config: RequestAuditConfig,
  auditID: string,
  info: RequestInfo,
  user: UserInfo,
): Promise<void> {
  const userAgent = ctx.get('User-Agent');
  const objectRef = objectRefOf(info);
  const audit = new RequestAudit(config, {
    auditID,
    requestURI: ctx.originalUrl,
    verb: info.verb,
    user,
    sourceIPs: sourceIPs(ctx),
    ...(userAgent ? { userAgent: userAgent.length > maxUserAgentLength ? `${userAgent.slice(0, maxUserAgentLength)}...TRUNCATED` : userAgent } : {}),
    ...(objectRef ? { objectRef } : {}),
    requestReceivedTimestamp: microTimeNow(),
  });
  ctx.state.audit = audit;
  const emit = (stage: AuditStage): void => {
    if (!config.omitStages.includes(stage)) backend.processEvents(audit.event(stage, microTimeNow()));
  };
  emit('RequestReceived');
  if (isLongRunning(info))
    reportStreamStart(ctx, (code) => {
      audit.setResponseCode(code);
      emit('ResponseStarted');
    });
  let failure: unknown;
  try {
    await next();
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    if (isUnexpectedError(ctx, failure)) {
      audit.setResponseStatus({ code: 500, status: 'Failure', reason: 'InternalError', message: `APIServer panic'd: ${String(failure)}` });
      emit('Panic');
    } else {
      // A Status thrown before the response started is what the error middleware answers with.
      if (isStatusError(failure) && !responseStarted(ctx)) audit.logResponseObject(failure.status);
      audit.setResponseCode(statusCodeOf(ctx, failure));
      emit('ResponseComplete');
    }
  }
}

/**
 * Calls `started` when a response the handler streams itself (`ctx.respond = false`)
 * sends its headers. Like kube's audit response writer, it wraps the one call every
 * first write goes through: `writeHead` (HTTP/1.1 and HTTP/2 compatibility responses alike).
 */
function reportStreamStart(ctx: Context, started: (code: number) => void): void {
  const res = ctx.res;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back, and called with the response as `this`
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    res.writeHead = writeHead;
    if (ctx.respond === false) started(typeof args[0] === 'number' ? args[0] : res.statusCode);
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  };
}
