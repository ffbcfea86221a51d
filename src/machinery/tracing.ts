/**
 * The one door every layer goes through to trace: the tracer the server configured from
 * `--tracing-config-file`, or none. Lower layers (http, auth, registry, storage) call
 * {@link inSpan} and {@link traceHeaders} instead of being handed a tracer, so tracing adds
 * no parameter to their constructors; the context a span runs in travels with the async
 * call chain (`@opentelemetry/api`'s context, which the server backs with AsyncLocalStorage).
 * Without a tracer nothing here allocates a span or a context: {@link inSpan} calls its work
 * at once, and the hot path pays one comparison.
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';

export { SpanKind, SpanStatusCode, type Span, type SpanContext };

let tracer: Tracer | undefined;

/** Sets (or, with undefined, removes) the tracer every span is started with. */
export function setTracer(next: Tracer | undefined): void {
  tracer = next;
}

/** Whether a tracer is configured: callers skip building attributes when it is not. */
export function tracing(): boolean {
  return tracer !== undefined;
}

/** How a span starts: its kind, attributes, links, and a parent other than the active span. */
export interface SpanStart {
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
  readonly links?: readonly Link[];
  /** The parent; the active context by default. */
  readonly parent?: Context;
  /**
   * Only beneath a live, sampled span: work outside any traced request or batch (compaction)
   * starts no trace of its own, and a loop a request happened to start (a watch cache's
   * polls) adds nothing to that request's trace once it ended.
   */
  readonly onlyWithinSpan?: boolean;
}

/**
 * Runs `work` in a new span that ends when it settles (an error is recorded on it);
 * without a tracer, runs `work(undefined)` and nothing else.
 */
export function inSpan<T>(name: string, start: SpanStart, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (tracer === undefined) return work(undefined);
  const parent = start.parent ?? context.active();
  if (start.onlyWithinSpan && trace.getSpan(parent)?.isRecording() !== true) return work(undefined);
  const span = tracer.startSpan(
    name,
    { kind: start.kind ?? SpanKind.INTERNAL, attributes: start.attributes, links: start.links ? [...start.links] : undefined },
    parent,
  );
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await work(span);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Marks `span` as failed by `error`. */
export function failed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/**
 * Starts a span the caller ends (a request's, which ends when its response does), as a
 * child of the W3C trace context in `carrier` (`traceparent`, `tracestate`) when there is
 * one; undefined without a tracer. {@link runIn} runs work in the span's context.
 */
export function startSpanFrom(
  name: string,
  carrier: Readonly<Record<string, string | string[] | undefined>>,
  start: SpanStart,
): { span: Span; context: Context } | undefined {
  if (tracer === undefined) return undefined;
  const parent = propagation.extract(ROOT_CONTEXT, carrier);
  const span = tracer.startSpan(name, { kind: start.kind, attributes: start.attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `work` in `spanContext`, as async functions called from it inherit. */
export function runIn<T>(spanContext: Context, work: () => T): T {
  return context.with(spanContext, work);
}

/**
 * The W3C trace context headers (`traceparent`, and `tracestate` when set) of the active
 * span, for an outgoing request to carry; undefined without a tracer or an active span.
 */
export function traceHeaders(): Record<string, string> | undefined {
  if (tracer === undefined) return undefined;
  const headers: Record<string, string> = {};
  propagation.inject(context.active(), headers);
  return 'traceparent' in headers ? headers : undefined;
}

/** The active span's context, to link to later (a write joining a batch); undefined without a tracer or an active span. */
export function activeSpanContext(): SpanContext | undefined {
  if (tracer === undefined) return undefined;
  return trace.getSpan(context.active())?.spanContext();
}

/**
 * The attributes of an outgoing HTTP request's client span, to `path` on `server` when it
 * is known: the names kube-apiserver 1.34's otelhttp transport gives its own (`http.method`,
 * `http.url`, `net.peer.name`, `net.peer.port`), so one query reads both servers' spans.
 */
export function httpClientAttributes(method: string, server: string | undefined, path: string): Attributes {
  if (server === undefined) return { 'http.method': method, 'http.target': path };
  const url = new URL(path, server);
  return {
    'http.method': method,
    'http.url': url.href,
    'net.peer.name': url.hostname,
    'net.peer.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
  };
}

/** Records an outgoing request's answer on its client span (`http.status_code`, as kube's); a 4xx or 5xx fails it, as otelhttp's transport. */
export function answered(span: Span | undefined, status: number): void {
  span?.setAttribute('http.status_code', status);
  if (status >= 400) span?.setStatus({ code: SpanStatusCode.ERROR });
}

/** A context whose parent is `spanContext` (another request's span), or the root. */
export function contextOf(spanContext: SpanContext | undefined): Context {
  return spanContext === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, spanContext);
}
