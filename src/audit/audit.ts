/**
 * The audit seam, after k8s.io/apiserver's `audit.Backend` and `audit.k8s.io/v1`
 * Event: the handler chain asks a policy how much to record of a request, and tells a
 * backend when the request was received, when a long-running response (watch, log
 * stream) started, and when the response completed (or the handler failed
 * unexpectedly: `Panic`). The default backend drops every event.
 */
import type { AuthorizationAttributes } from '../auth/authorizer.js';
import type { UserInfo } from '../auth/user-info.js';

/** How much of a request is recorded, least first: kube's `audit.Level`. */
export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';

/** The levels in order: a level records everything the ones before it do. */
export const auditLevels: readonly AuditLevel[] = Object.freeze(['None', 'Metadata', 'Request', 'RequestResponse']);

/** Whether `level` records at least what `least` does. */
export function auditsAtLeast(level: AuditLevel, least: AuditLevel): boolean {
  return auditLevels.indexOf(level) >= auditLevels.indexOf(least);
}

/**
 * The stages kube audits a request at. `ResponseStarted` exists only for responses
 * streamed after their headers (watch, follow); `Panic` replaces `ResponseComplete`
 * when a handler fails unexpectedly.
 */
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

/** Every stage, as kube's policy validation lists them. */
export const auditStages: readonly AuditStage[] = Object.freeze(['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic']);

/** What a request touched, as `audit.k8s.io/v1` ObjectReference names it; absent for non-resource requests. */
export interface AuditObjectReference {
  readonly resource: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly uid?: string;
  readonly apiGroup?: string;
  readonly apiVersion: string;
  /** The resourceVersion a create or update sent. */
  readonly resourceVersion?: string;
  readonly subresource?: string;
}

/** The response's outcome as kube records it: the code, and for a Status response its status, reason, message and details. */
export interface AuditResponseStatus {
  readonly code: number;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly details?: unknown;
}

/** One audit event, in the shape of `audit.k8s.io/v1` Event (the fields Cairn knows). */
export interface AuditEvent {
  readonly level: Exclude<AuditLevel, 'None'>;
  /** Unique per request, shared by its stages; also the `Audit-Id` response header. */
  readonly auditID: string;
  readonly stage: AuditStage;
  readonly requestURI: string;
  /** The RequestInfo verb (`get`, `list`, `watch`, … or the lower-case method off resources). */
  readonly verb: string;
  readonly user: UserInfo;
  readonly sourceIPs: readonly string[];
  readonly userAgent?: string;
  readonly objectRef?: AuditObjectReference;
  /** Set from `ResponseStarted` on. */
  readonly responseStatus?: AuditResponseStatus;
  /** The body of a write as decoded, at `Request` and above. */
  readonly requestObject?: unknown;
  /** The object answered, at `RequestResponse`. */
  readonly responseObject?: unknown;
  /** RFC 3339 with microseconds, as kube writes `MicroTime`. */
  readonly requestReceivedTimestamp: string;
  readonly stageTimestamp: string;
  /** What filters noted on the way, e.g. `authorization.k8s.io/decision`. */
  readonly annotations?: Readonly<Record<string, string>>;
}

/** What the policy decided for one request: kube's `RequestAuditConfig`. */
export interface RequestAuditConfig {
  readonly level: AuditLevel;
  readonly omitStages: readonly AuditStage[];
  /** Whether `metadata.managedFields` is left out of the request and response objects. */
  readonly omitManagedFields: boolean;
}

/** Decides how a request is audited from its authorization attributes: kube's `PolicyRuleEvaluator`. */
export interface AuditPolicyRuleEvaluator {
  evaluatePolicyRule(attributes: AuthorizationAttributes): RequestAuditConfig;
}

/**
 * Receives audit events. Called on the request path, so an implementation that writes
 * anywhere slow must buffer (as kube's buffered backend does) rather than block.
 */
export interface AuditBackend {
  processEvents(...events: AuditEvent[]): void;
}

/** The default backend: audits nothing. */
export const noAudit: AuditBackend = Object.freeze({
  processEvents(): void {},
});

/** The default policy, as kube's without `--audit-policy-file`: nothing is audited. */
export const auditNothing: AuditPolicyRuleEvaluator = Object.freeze({
  evaluatePolicyRule: (): RequestAuditConfig => ({ level: 'None', omitStages: [], omitManagedFields: false }),
});

/** Sends every event to each of `backends` (kube's `audit.Union`). */
export function unionAuditBackend(backends: readonly AuditBackend[]): AuditBackend {
  if (backends.length === 1) return backends[0];
  return { processEvents: (...events) => backends.forEach((backend) => backend.processEvents(...events)) };
}
