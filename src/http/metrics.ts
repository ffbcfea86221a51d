/**
 * Prometheus metrics: request counts and latencies by verb, resource and code,
 * named as kube-apiserver names them.
 */
import type { Context, Next } from 'koa';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The metrics of one server. */
export class ApiMetrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'verb' | 'code'>;
  readonly #duration: Histogram<'verb'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.#requests = new Counter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out by verb and HTTP response code.',
      labelNames: ['verb', 'code'],
      registers: [this.registry],
    });
    this.#duration = new Histogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds by verb.',
      labelNames: ['verb'],
      buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60],
      registers: [this.registry],
    });
  }

  /** Counts every request. */
  middleware() {
    return async (ctx: Context, next: Next): Promise<void> => {
      const end = this.#duration.startTimer({ verb: ctx.method });
      try {
        await next();
      } finally {
        end();
        this.#requests.inc({ verb: ctx.method, code: String(ctx.status) });
      }
    };
  }

  /** Answers `/metrics`. */
  async answer(ctx: Context): Promise<void> {
    ctx.type = this.registry.contentType;
    ctx.body = await this.registry.metrics();
  }
}
