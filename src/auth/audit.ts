/**
 * The audit seam, after k8s.io/apiserver's `audit.Backend` and `audit.k8s.io/v1`
 * Event: the handler chain tells a backend when a request was received, when a
 * long-running response (watch, log stream) started, and when a response completed
 * with which code. Nothing writes audit logs yet; the default backend drops every event.
 */
import type { UserInfo } from './user-info.js';

/**
 * The stages kube audits a request at. `ResponseStarted` exists only for responses
 * streamed after their headers (watch, follow).
 */
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete';

/** What a request touched, as `audit.k8s.io/v1` ObjectReference names it; absent for non-resource requests. */
export interface AuditObjectReference {
  readonly resource: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly apiGroup?: string;
  readonly apiVersion: string;
  readonly subresource?: string;
}

/** One audit event, in the shape of `audit.k8s.io/v1` Event (the fields Cairn knows). */
export interface AuditEvent {
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
  /** Set from `ResponseStarted` on: the response's HTTP status code. */
  readonly responseStatus?: { readonly code: number };
  /** RFC 3339 with microseconds, as kube writes `MicroTime`. */
  readonly requestReceivedTimestamp: string;
  readonly stageTimestamp: string;
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
