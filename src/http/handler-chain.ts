/**
 * The request path in one place, outermost first, as k8s.io/apiserver's
 * `DefaultBuildHandlerChain`: every request passes these filters, in this order,
 * before its route.
 */
import type { DefaultContext, DefaultState, Middleware } from 'koa';
import type { Logger } from 'pino';
import type { AuditBackend, AuditPolicyRuleEvaluator } from '../audit/audit.js';
import type { Authorizer } from '../auth/authorizer.js';
import type { Authenticator } from '../auth/user-info.js';
import { errorMiddleware } from './filters/error-middleware.js';
import { withAudit } from './filters/audit.js';
import { withAuthentication } from './filters/authentication.js';
import { withAuthorization } from './filters/authorization.js';
import { withMaxInFlightLimit, type InFlightLimits } from './filters/max-in-flight.js';
import type { ApiMetrics } from './filters/metrics.js';
import { withRequestInfo } from './filters/request-info.js';
import type { SubresourceNames } from './request/request-info.js';
import { withRequestTimeout } from './filters/timeout.js';
import { withTracing } from './filters/tracing.js';
import { tracing } from '../machinery/tracing.js';

/** What the filters are configured with. */
export interface HandlerChainConfig {
  /** The served subresources' second names and which are long-running, from the endpoint table. */
  readonly subresources: SubresourceNames;
  readonly metrics: ApiMetrics;
  readonly logger: Logger;
  readonly authenticators: readonly Authenticator[];
  readonly audit: AuditBackend;
  readonly auditPolicy: AuditPolicyRuleEvaluator;
  readonly authorizer: Authorizer;
  /** `--request-timeout`, in ms. */
  readonly requestTimeoutMs: number;
  /** `--max-requests-inflight` and `--max-mutating-requests-inflight`. */
  readonly inFlightLimits: InFlightLimits;
}

/**
 * The filters around `routes`, outermost first. What each leaves on `ctx.state` for
 * those after it: `requestInfo` (RequestInfo), `user` (UserInfo), `auditID`, and `audit` (its
 * audit event in the making) when the request is audited.
 */
export function buildHandlerChain<C extends DefaultContext>(config: HandlerChainConfig, routes: Middleware<DefaultState, C>): Middleware<DefaultState, C>[] {
  return [
    // Outside everything, so it counts each request's final code: the Status of an error, the end of a watch.
    config.metrics.middleware(),
    // Every error thrown below becomes a Status, in the serializer the client accepts.
    errorMiddleware(config.logger),
    withRequestInfo(config.subresources),
    // Inside request info, which names its span, as kube's WithTracing; outside the rest, which runs in the span. Not there untraced.
    ...(tracing() ? [withTracing()] : []),
    config.metrics.longRunning(),
    // Outside authentication, as kube's: a slow token review is timed out too.
    withRequestTimeout(config.requestTimeoutMs, config.logger),
    withAuthentication(config.authenticators),
    withAudit(config.audit, config.auditPolicy),
    // After authentication (system:masters passes a full server) and audit (a 429 is audited), as kube orders them.
    withMaxInFlightLimit(config.inFlightLimits, (kind, count) => config.metrics.reportInFlight(kind, count)),
    withAuthorization(config.authorizer),
    // Admission: the registry runs it on each write; its configuration (plugins, webhooks)
    // attaches here, on ctx.state, between authorization and the routes.
    routes,
  ];
}
