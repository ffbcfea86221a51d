/**
 * Prometheus metrics as kube-apiserver names and labels them:
 * `apiserver_request_total{verb,dry_run,group,version,resource,subresource,scope,component,code}`
 * and the `apiserver_request_duration_seconds` histogram (the same labels but code);
 * `apiserver_current_inflight_requests{request_kind}` and `apiserver_longrunning_requests`;
 * `apiserver_watch_events_total` and `apiserver_watch_events_sizes{group,version,kind}`
 * (storage's, `apiserver_storage_objects` among them, are in the same registry).
 * Each request is counted once its answer is final (the Status of an error, the end of
 * a watch), with kube's verb (`LIST`, `WATCH`, `APPLY`, …) and scope; and what the health
 * endpoints found, in component-base's `kubernetes_healthcheck{name,type}` and
 * `kubernetes_healthchecks_total{name,type,status}`.
 */
import type { Context, Next } from 'koa';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ApiGroup } from '../../apis/api-resource.js';
import { applyPatchType } from '../../machinery/patch/patch.js';
import { discoveredResources } from '../discovery/discovery.js';
import { mediaType } from '../request/decode-body.js';
import { isLongRunning, type RequestInfo } from '../request/request-info.js';
import type { RequestKind } from './max-in-flight.js';

type RequestLabel = 'verb' | 'dry_run' | 'group' | 'version' | 'resource' | 'subresource' | 'scope' | 'component';

const requestKinds: readonly RequestKind[] = ['readOnly', 'mutating'];

/** kube's `APIServerComponent`. */
const component = 'apiserver';

/** kube's `validMethods`: any other reported verb is `other`. */
const reportedVerbs: ReadonlySet<string> = new Set([
  'APPLY',
  'CONNECT',
  'CREATE',
  'DELETE',
  'DELETECOLLECTION',
  'GET',
  'LIST',
  'PATCH',
  'POST',
  'PROXY',
  'PUT',
  'UPDATE',
  'WATCH',
  'WATCHLIST',
]);

/** kube's `apiserver_watch_events_sizes` buckets: 1 KiB doubling to 128 KiB. */
const watchEventSizeBuckets = Array.from({ length: 8 }, (_, i) => 1024 * 2 ** i);

/** Records the events a watch sends, as kube's watch handler does. */
export interface WatchEventMetrics {
  /**
   * What records one watch's events of `group/version` `kind`, each of `bytes` on the
   * wire: its labels are looked up once per watch, not once per delivery.
   */
  forWatch(group: string, version: string, kind: string): (bytes: number) => void;
}

/** kube-apiserver's buckets for `apiserver_request_duration_seconds`. */
const durationBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/**
 * The scope of a resource request as kube's installer assigns it to routes: `resource`
 * when the path names an object or the request creates one, otherwise `namespace` or
 * `cluster`; '' off resources.
 */
export function metricScope(method: string, info: RequestInfo): string {
  if (!info.isResourceRequest) return '';
  if (info.parts.length >= 2 || method === 'POST') return 'resource';
  return info.namespace ? 'namespace' : 'cluster';
}

/** kube's `CanonicalVerb` and `cleanVerb`: the upper-case verb a request is counted under. */
export function metricVerb(method: string, contentType: string | undefined, info: RequestInfo, scope: string): string {
  let verb = method;
  const collection = scope !== 'resource' && scope !== '';
  if (method === 'GET' || method === 'HEAD') verb = collection ? 'LIST' : 'GET';
  else if (method === 'DELETE' && collection) verb = 'DELETECOLLECTION';
  if (info.isResourceRequest && info.verb === 'watch') verb = 'WATCH';
  if (method === 'PATCH' && mediaType(contentType) === applyPatchType) verb = 'APPLY';
  return reportedVerbs.has(verb) ? verb : 'other';
}

/** kube's `cleanDryRun`: '' without `dryRun`, the sorted distinct values when all are `All`, `invalid` otherwise. */
export function metricDryRun(query: URLSearchParams): string {
  const values = query.getAll('dryRun');
  if (values.length === 0) return '';
  if (values.some((v) => v !== 'All')) return 'invalid';
  return [...new Set(values)].sort().join(',');
}

/** `group/version/resource/subresource` of everything the groups serve, as discovery lists it. */
function servedKeys(groups: readonly ApiGroup[]): ReadonlySet<string> {
  const keys = new Set<string>();
  for (const group of groups) {
    for (const version of group.versions) {
      for (const { resource, subresources } of discoveredResources(group, version)) {
        keys.add(`${group.name}/${version}/${resource.plural}/`);
        for (const sub of subresources) keys.add(`${group.name}/${version}/${resource.plural}/${sub.name}`);
      }
    }
  }
  return keys;
}

/** The metrics of one server. */
export class ApiMetrics {
  readonly registry = new Registry();
  readonly #requests: Counter<RequestLabel | 'code'>;
  readonly #duration: Histogram<RequestLabel>;
  readonly #inFlight: Gauge<'request_kind'>;
  /** What the max-in-flight filter counts of each kind now, which the gauge reads when scraped. */
  readonly #inFlightNow: Record<RequestKind, number> = { readOnly: 0, mutating: 0 };
  readonly #longRunning: Gauge<Exclude<RequestLabel, 'dry_run'>>;
  readonly #healthCheck: Gauge<'name' | 'type'>;
  readonly #healthChecks: Counter<'name' | 'type' | 'status'>;
  readonly #served: ReadonlySet<string>;
  /** What watch handlers record their events with. */
  readonly watchEvents: WatchEventMetrics;

  /**
   * `groups`: what the server serves; requests for anything else are counted without
   * their resource labels. Storage registers its own metrics in {@link registry}.
   */
  constructor(groups: readonly ApiGroup[]) {
    this.#served = servedKeys(groups);
    collectDefaultMetrics({ register: this.registry });
    const labelNames: RequestLabel[] = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'];
    const inFlight = this.#inFlightNow;
    this.#inFlight = new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registers: [this.registry],
      // Read when scraped: a request changes a number, not the gauge's series.
      collect() {
        for (const kind of requestKinds) this.set({ request_kind: kind }, inFlight[kind]);
      },
    });
    // Both kinds are reported from the start, as kube does, so a dashboard sees zeros rather than nothing.
    for (const kind of requestKinds) this.#inFlight.set({ request_kind: kind }, 0);
    this.#longRunning = new Gauge({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      registers: [this.registry],
    });
    const events = new Counter({
      name: 'apiserver_watch_events_total',
      help: 'Number of events sent in watch clients',
      labelNames: ['group', 'version', 'kind'],
      registers: [this.registry],
    });
    const sizes = new Histogram({
      name: 'apiserver_watch_events_sizes',
      help: 'Watch event size distribution in bytes',
      labelNames: ['group', 'version', 'kind'],
      buckets: watchEventSizeBuckets,
      registers: [this.registry],
    });
    this.watchEvents = {
      forWatch(group, version, kind) {
        const eventsOfWatch = events.labels({ group, version, kind });
        const sizesOfWatch = sizes.labels({ group, version, kind });
        return (bytes) => {
          eventsOfWatch.inc();
          sizesOfWatch.observe(bytes);
        };
      },
    };
    this.#requests = new Counter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: [...labelNames, 'code'],
      registers: [this.registry],
    });
    this.#duration = new Histogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames,
      buckets: durationBuckets,
      registers: [this.registry],
    });
    this.#healthCheck = new Gauge({
      name: 'kubernetes_healthcheck',
      help: 'This metric records the result of a single healthcheck.',
      // Across --workers workers: a check passes (1) only when it passes in every one.
      aggregator: 'min',
      labelNames: ['name', 'type'],
      registers: [this.registry],
    });
    this.#healthChecks = new Counter({
      name: 'kubernetes_healthchecks_total',
      help: 'This metric records the results of all healthcheck.',
      labelNames: ['name', 'type', 'status'],
      registers: [this.registry],
    });
  }

  /** One health check's result as a probe of `/<type>` found it: 1 healthy, 0 not, as kube records it. */
  healthCheck(type: string, name: string, healthy: boolean): void {
    this.#healthCheck.set({ name, type }, healthy ? 1 : 0);
    this.#healthChecks.inc({ name, type, status: healthy ? 'success' : 'error' });
  }

  /**
   * The labels of a finished request. Off resources, `subresource` holds the route's
   * path, as kube labels `/healthz`. A client may send any path, so only what Cairn
   * serves gets its own series: anything else is counted with empty
   * group/version/resource/subresource, keeping the number of series bounded.
   */
  #labels(ctx: Context, info: RequestInfo | undefined): Record<RequestLabel, string> {
    const resourceInfo = info?.isResourceRequest ? info : undefined;
    const scope = info ? metricScope(ctx.method, info) : '';
    const verb = info ? metricVerb(ctx.method, ctx.get('Content-Type'), info, scope) : reportedVerbs.has(ctx.method) ? ctx.method : 'other';
    const served = resourceInfo && this.#served.has(`${resourceInfo.apiGroup}/${resourceInfo.apiVersion}/${resourceInfo.resource}/${resourceInfo.subresource}`);
    const route = (ctx as { routerPath?: string }).routerPath;
    return {
      verb,
      dry_run: ctx.querystring === '' ? '' : metricDryRun(new URLSearchParams(ctx.querystring)),
      group: served ? resourceInfo.apiGroup : '',
      version: served ? resourceInfo.apiVersion : '',
      resource: served ? resourceInfo.resource : '',
      subresource: served ? resourceInfo.subresource : !resourceInfo && route ? route : '',
      scope,
      component,
    };
  }

  /**
   * Counts every request once its answer is final: it wraps the whole chain, so errors
   * are counted with the code of their Status, and streams when they end.
   */
  middleware() {
    return async (ctx: Context, next: Next): Promise<void> => {
      const start = process.hrtime.bigint();
      try {
        await next();
      } finally {
        const labels = this.#labels(ctx, (ctx.state as { requestInfo?: RequestInfo }).requestInfo);
        this.#duration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
        this.#requests.inc({ ...labels, code: String(ctx.status) });
      }
    };
  }

  /** Tracks long-running requests (watches, logs) while they are served, in `apiserver_longrunning_requests`. */
  longRunning() {
    // Not async: most requests are not long-running, and pass through at once.
    return (ctx: Context, next: Next): Promise<void> => {
      const info = (ctx.state as { requestInfo?: RequestInfo }).requestInfo;
      if (!isLongRunning(info)) return next() as Promise<void>;
      return this.#whileLongRunning(this.#labels(ctx, info), next);
    };
  }

  /** Counts a long-running request in `apiserver_longrunning_requests` while it is served. */
  async #whileLongRunning({ dry_run: _, ...labels }: Record<RequestLabel, string>, next: Next): Promise<void> {
    this.#longRunning.inc(labels);
    try {
      await next();
    } finally {
      this.#longRunning.dec(labels);
    }
  }

  /** `apiserver_current_inflight_requests`: what the max-in-flight filter counts of each kind now. */
  reportInFlight(kind: RequestKind, count: number): void {
    this.#inFlightNow[kind] = count;
  }

  /** What `/metrics` answers with: this registry's metrics, or, in a `--workers` worker, every worker's summed. */
  gather: () => Promise<string> = () => this.registry.metrics();

  /** Answers `/metrics`. */
  async answer(ctx: Context): Promise<void> {
    ctx.type = this.registry.contentType;
    ctx.body = await this.gather();
  }
}
