/**
 * The request's span, as kube's `WithTracing` filter (otelhttp's handler): a server span
 * continuing the W3C `traceparent` the request carries (kube-apiserver's proxy span, when
 * the aggregation layer forwarded it), named as kube names it (`GET
 * /apis/cairn.dev/v1/namespaces/{:namespace}/pipelines/{:name}`, the method alone off
 * resources), with the attributes kube-apiserver 1.34's spans carry (otelhttp's
 * `http.method`, `http.target`, `net.host.name`, `http.status_code`…, and kube's `audit-id`),
 * so one query reads both servers' spans. Everything after it (authentication, authorization, admission, storage) runs
 * in the span's context. It ends when the response does, as kube's ends when its handler
 * returns: a watch's or a log follow's when its stream ends. The chain has it only when a
 * tracer is configured.
 */
import type { Context, Next } from 'koa';
import { runIn, SpanKind, SpanStatusCode, startSpanFrom } from '../../machinery/tracing.js';
import type { RequestInfo } from '../request/request-info.js';
import { requestInfoOf } from './request-info.js';

/** kube's `getSpanNameFromRequestInfo`: the method and the path with its name and namespace left out. */
export function spanNameOf(method: string, info: RequestInfo): string {
  if (!info.isResourceRequest) return method;
  let path = `/${info.apiPrefix}`;
  if (info.apiGroup !== '') path += `/${info.apiGroup}`;
  path += `/${info.apiVersion}`;
  if (info.namespace !== '') path += '/namespaces/{:namespace}';
  path += `/${info.resource}`;
  if (info.name !== '') path += '/{:name}';
  if (info.subresource !== '') path += `/${info.subresource}`;
  return `${method} ${path}`;
}

/** Starts each request's span; after `withRequestInfo`, whose RequestInfo names it. */
export function withTracing() {
  return async (ctx: Context, next: Next): Promise<void> => {
    const { req } = ctx;
    const [host, port] = [req.socket.localAddress, req.socket.localPort];
    const started = startSpanFrom(spanNameOf(ctx.method, requestInfoOf(ctx)), req.headers, {
      kind: SpanKind.SERVER,
      attributes: {
        'http.method': ctx.method,
        'http.scheme': 'https',
        'net.host.name': ctx.hostname || host,
        ...(port !== undefined ? { 'net.host.port': port } : {}),
        'net.sock.peer.addr': req.socket.remoteAddress,
        'net.sock.peer.port': req.socket.remotePort,
        'user_agent.original': ctx.get('User-Agent') || undefined,
        'http.target': ctx.url,
        'net.protocol.version': req.httpVersion,
        ...(ctx.request.length !== undefined ? { 'http.request_content_length': ctx.request.length } : {}),
      },
    });
    if (started === undefined) {
      await next();
      return;
    }
    const { span } = started;
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      span.setAttribute('http.status_code', ctx.res.statusCode);
      const auditID = (ctx.state as { auditID?: string }).auditID;
      if (auditID !== undefined) span.setAttribute('audit-id', auditID);
      // As otelhttp: a server span fails on a 5xx only; a 4xx is the client's.
      if (ctx.res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    // 'finish' once the last byte is handed to the socket; 'close' too when the client went first.
    ctx.res.once('finish', end);
    ctx.res.once('close', end);
    await runIn(started.context, next);
  };
}
