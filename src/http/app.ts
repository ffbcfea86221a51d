/**
 * The Koa application: every route, behind the handler chain (`handler-chain.ts`).
 */
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import type { Logger } from 'pino';
import type { ApiGroup } from '../apis/api-resource.js';
import { auditNothing, noAudit, type AuditBackend, type AuditPolicyRuleEvaluator } from '../audit/audit.js';
import type { Authorizer } from '../auth/authorizer.js';
import type { Authenticator } from '../auth/user-info.js';
import { pathNotFound } from '../machinery/errors.js';
import type { Admission } from '../registry/admission.js';
import { endpointTable } from '../registry/endpoints.js';
import type { Registry } from '../registry/registry.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions } from './discovery/discovery.js';
import { discoveryRoute } from './discovery/discovery-route.js';
import { buildHandlerChain } from './handler-chain.js';
import { routeHealth, type HealthCheck } from './health.js';
import { defaultInFlightLimits, type InFlightLimits } from './filters/max-in-flight.js';
import { ApiMetrics } from './filters/metrics.js';
import { defaultRequestTimeoutMs } from './filters/timeout.js';
import { openApiDocuments } from '../openapi/documents.js';
import { openApiEndpoints } from './discovery/openapi-endpoints.js';
import { handleResource, type ResourceHandlerOptions } from './resource-handler.js';
import { requestInfoOf } from './filters/request-info.js';
import { isResourceRoute, resourceRoute } from './resource-route.js';
import { subresourceNamesOf } from './request/request-info.js';
import { encode, negotiateOutput } from './response/negotiation.js';
import { versionInfo } from '../machinery/version-info.js';

/** What the app is built from. */
export interface AppOptions {
  readonly groups: readonly ApiGroup[];
  /** The registry once storage is ready; undefined before. */
  readonly registry: () => Registry | undefined;
  /** Asked in turn; a request none recognises is `system:anonymous`. */
  readonly authenticators: readonly Authenticator[];
  /** Decides what each user (anonymous included) may do. */
  readonly authorizer: Authorizer;
  /** Where audit events go; nowhere by default. */
  readonly audit?: AuditBackend;
  /** Which requests are audited, at which level; none by default, as kube without `--audit-policy-file`. */
  readonly auditPolicy?: AuditPolicyRuleEvaluator;
  readonly livezChecks: readonly HealthCheck[];
  readonly readyzChecks: readonly HealthCheck[];
  readonly logger: Logger;
  /** Aborts when the server begins shutting down. */
  readonly shutdown: AbortSignal;
  /** Milliseconds between BOOKMARK events of watches that allow them. */
  readonly watchBookmarkIntervalMs: number;
  /** The admission chain writes go through (NamespaceLifecycle in a cluster); none when undefined. */
  readonly admission?: Admission;
  /** How long a watch waits for its client to read an event before ending the watch; 10 s by default. */
  readonly unresponsiveWatcherTimeoutMs?: number;
  /** The metrics `/metrics` answers with, when the server reports more than the app's own (storage, compaction). */
  readonly metrics?: ApiMetrics;
  /** `--request-timeout` in ms; kube's 60 s by default. */
  readonly requestTimeoutMs?: number;
  /** `--max-requests-inflight` and `--max-mutating-requests-inflight`; kube's 400 and 200 by default. */
  readonly inFlightLimits?: InFlightLimits;
}

/**
 * A client that has not taken an event for this long is stuck, not slow: a watch over a
 * congested link still drains a socket buffer in far less.
 */
const defaultUnresponsiveWatcherTimeoutMs = 10_000;

function json(ctx: Context, value: unknown): void {
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(value);
}

/** Writes a discovery document in the format Accept negotiates (protobuf too, as kube); 406 when it names none. */
function negotiated(ctx: Context, value: unknown): void {
  const { body, contentType } = encode(value, negotiateOutput(ctx.get('Accept')));
  ctx.type = contentType;
  ctx.body = body;
}

/** Builds the application. */
export function createApp(options: AppOptions): Koa {
  const app = new Koa();
  const metrics = options.metrics ?? new ApiMetrics(options.groups);
  const endpoints = endpointTable(options.groups);
  const openapi = openApiEndpoints(openApiDocuments(options.groups, endpoints.all));

  const router = new Router();
  router.get('/version', (ctx) => json(ctx, versionInfo()));
  const observeHealth = metrics.healthCheck.bind(metrics);
  routeHealth(router, 'livez', options.livezChecks, observeHealth);
  // kube's deprecated /healthz: here the liveness checks, so what probed it before still restarts only what a restart mends.
  routeHealth(router, 'healthz', options.livezChecks, observeHealth);
  routeHealth(router, 'readyz', options.readyzChecks, observeHealth);
  router.get('/metrics', (ctx) => metrics.answer(ctx));
  router.get('/api', discoveryRoute(apiVersions(), []));
  router.get('/apis', discoveryRoute(apiGroupList(options.groups), options.groups));
  router.get('/apis/:group', (ctx) => {
    const group = options.groups.find((g) => g.name === ctx.params.group);
    if (!group) throw pathNotFound();
    negotiated(ctx, apiGroup(group));
  });
  router.get('/apis/:group/:version', (ctx) => {
    const group = options.groups.find((g) => g.name === ctx.params.group);
    const list = group && apiResourceList(group, ctx.params.version);
    if (!list) throw pathNotFound();
    negotiated(ctx, list);
  });
  router.get('/openapi/v2', openapi.v2);
  router.get('/openapi/v3', openapi.v3Root);
  router.get('/openapi/v3/apis/:group/:version', openapi.v3Document);
  const resourceOptions: ResourceHandlerOptions = {
    endpoints,
    registry: options.registry,
    shutdown: options.shutdown,
    bookmarkIntervalMs: options.watchBookmarkIntervalMs,
    admission: options.admission,
    watchEvents: metrics.watchEvents,
    unresponsiveWatcherTimeoutMs: options.unresponsiveWatcherTimeoutMs ?? defaultUnresponsiveWatcherTimeoutMs,
  };
  router.all(resourceRoute, (ctx) => handleResource(ctx, resourceOptions));
  const routes = router.routes();
  // A resource request goes straight to its handler: the router would match it against every route, then
  // build and compose a chain for it, all to reach the same handler (its params and routerPath are not read).
  const resourcesFirst: typeof routes = (ctx, next) =>
    isResourceRoute(ctx.path) && requestInfoOf(ctx).isResourceRequest ? handleResource(ctx, resourceOptions) : (routes(ctx, next) as Promise<void>);

  const chain = buildHandlerChain(
    {
      subresources: subresourceNamesOf(endpoints),
      metrics,
      logger: options.logger,
      authenticators: options.authenticators,
      audit: options.audit ?? noAudit,
      auditPolicy: options.auditPolicy ?? auditNothing,
      authorizer: options.authorizer,
      requestTimeoutMs: options.requestTimeoutMs ?? defaultRequestTimeoutMs,
      inFlightLimits: options.inFlightLimits ?? defaultInFlightLimits,
    },
    resourcesFirst,
  );
  for (const middleware of chain) app.use(middleware);
  // Koa's default error listener prints to stderr; errors are already answered and logged above.
  app.on('error', () => {});
  return app;
}
