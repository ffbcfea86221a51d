/**
 * What one request's audit event holds as the request goes on, as kube's
 * `audit.AuditContext`: the level the policy chose, and what handlers and filters add
 * to the event (the request and response objects, the response's Status, annotations).
 * Handlers call the `log*` functions whatever the level: each records only what the
 * request's level asks for, and nothing when the request is not audited.
 */
import type { Context } from 'koa';
import {
  auditsAtLeast,
  type AuditEvent,
  type AuditObjectReference,
  type AuditResponseStatus,
  type AuditStage,
  type RequestAuditConfig,
} from '../../audit/audit.js';
import { isPlainObject } from '../../machinery/meta/object.js';

/** The fixed part of an event: everything known when the request was received. */
export type AuditEventBase = Omit<AuditEvent, 'level' | 'stage' | 'stageTimestamp' | 'responseStatus' | 'requestObject' | 'responseObject' | 'annotations'>;

/** `value` without `metadata.managedFields`: an object, a list's items, or a Table's rows' objects; copied, never changed. */
export function withoutManagedFields(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  let result: Record<string, unknown> = value;
  const metadata = value.metadata;
  if (isPlainObject(metadata) && 'managedFields' in metadata) {
    const { managedFields: _, ...rest } = metadata;
    result = { ...result, metadata: rest };
  }
  if (Array.isArray(value.items)) result = { ...result, items: value.items.map(withoutManagedFields) };
  if (value.kind === 'Table' && Array.isArray(value.rows))
    result = { ...result, rows: value.rows.map((row: unknown) => (isPlainObject(row) ? { ...row, object: withoutManagedFields(row.object) } : row)) };
  return result;
}

/** A metav1.Status answered as an object (a delete's success). */
function isStatus(value: unknown): value is Record<string, unknown> & { code: number } {
  return isPlainObject(value) && value.kind === 'Status' && typeof value.code === 'number';
}

/** The audit event of one request in the making. */
export class RequestAudit {
  readonly config: RequestAuditConfig;
  readonly #base: AuditEventBase;
  #objectRef: AuditObjectReference | undefined;
  #responseStatus: AuditResponseStatus | undefined;
  #requestObject: unknown;
  #responseObject: unknown;
  #annotations: Record<string, string> | undefined;

  constructor(config: RequestAuditConfig, base: AuditEventBase) {
    this.config = config;
    this.#base = base;
    this.#objectRef = base.objectRef;
  }

  /** The event at `stage`, as it stands now (a snapshot: later additions do not change it). */
  event(stage: AuditStage, stageTimestamp: string): AuditEvent {
    return {
      ...this.#base,
      level: this.config.level as AuditEvent['level'],
      stage,
      ...(this.#objectRef ? { objectRef: this.#objectRef } : {}),
      ...(this.#responseStatus ? { responseStatus: this.#responseStatus } : {}),
      ...(this.#requestObject !== undefined ? { requestObject: this.#requestObject } : {}),
      ...(this.#responseObject !== undefined ? { responseObject: this.#responseObject } : {}),
      ...(this.#annotations ? { annotations: { ...this.#annotations } } : {}),
      stageTimestamp: stage === 'RequestReceived' ? this.#base.requestReceivedTimestamp : stageTimestamp,
    };
  }

  /** The code the response went out with; its Status fields, if any, stay. */
  setResponseCode(code: number): void {
    this.#responseStatus = { ...this.#responseStatus, code };
  }

  /** The whole response status, as kube sets it for a panic. */
  setResponseStatus(status: AuditResponseStatus): void {
    this.#responseStatus = status;
  }

  logRequestObject(object: unknown, enrichReference: boolean): void {
    if (enrichReference && this.#objectRef && isPlainObject(object) && isPlainObject(object.metadata)) {
      // As kube's LogRequestObject: what the URL left out (a create's name), the body says.
      const { name, namespace, uid, resourceVersion } = object.metadata;
      const ref = this.#objectRef;
      const pick = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
      this.#objectRef = {
        resource: ref.resource,
        ...((ref.namespace ?? pick(namespace)) ? { namespace: ref.namespace ?? pick(namespace) } : {}),
        ...((ref.name ?? pick(name)) ? { name: ref.name ?? pick(name) } : {}),
        ...((ref.uid ?? pick(uid)) ? { uid: ref.uid ?? pick(uid) } : {}),
        ...(ref.apiGroup ? { apiGroup: ref.apiGroup } : {}),
        apiVersion: ref.apiVersion,
        ...((ref.resourceVersion ?? pick(resourceVersion)) ? { resourceVersion: ref.resourceVersion ?? pick(resourceVersion) } : {}),
        ...(ref.subresource ? { subresource: ref.subresource } : {}),
      };
    }
    if (auditsAtLeast(this.config.level, 'Request')) this.#requestObject = this.#trimmed(object);
  }

  logResponseObject(object: unknown): void {
    if (isStatus(object)) {
      const { status, reason, message, details, code } = object as Record<string, unknown>;
      this.#responseStatus = {
        code: code as number,
        ...(typeof status === 'string' && status ? { status } : {}),
        ...(typeof reason === 'string' && reason ? { reason } : {}),
        ...(typeof message === 'string' && message ? { message } : {}),
        ...(details !== undefined ? { details } : {}),
      };
    }
    if (auditsAtLeast(this.config.level, 'RequestResponse')) this.#responseObject = this.#trimmed(object);
  }

  /** Adds annotations; as kube, a key keeps its first value. */
  addAnnotations(annotations: Readonly<Record<string, string>>): void {
    this.#annotations = { ...annotations, ...this.#annotations };
  }

  #trimmed(object: unknown): unknown {
    return this.config.omitManagedFields ? withoutManagedFields(object) : object;
  }
}

/** The audit event of the request, when it is audited. */
function requestAuditOf(ctx: Context): RequestAudit | undefined {
  return (ctx.state as { audit?: RequestAudit }).audit;
}

/** Whether the request's audit event records the response object: a handler must then not stream it past the audit. */
export function auditsResponseObject(ctx: Context): boolean {
  const audit = requestAuditOf(ctx);
  return audit !== undefined && auditsAtLeast(audit.config.level, 'RequestResponse');
}

/** Records the decoded body of a create or update (kube's `LogRequestObject`); the object names what the URL did not. */
export function logRequestObject(ctx: Context, object: unknown): void {
  requestAuditOf(ctx)?.logRequestObject(object, true);
}

/** Records a body that is not the object itself as the request object: a patch document (kube's `LogRequestPatch`), DeleteOptions. */
export function logRequestBody(ctx: Context, body: unknown): void {
  requestAuditOf(ctx)?.logRequestObject(body, false);
}

/** Records what the response carries (kube's `LogResponseObject`): a Status's fields, and the object at RequestResponse. */
export function logResponseObject(ctx: Context, object: unknown): void {
  requestAuditOf(ctx)?.logResponseObject(object);
}

/** Adds annotations to the request's audit event (kube's `AddAuditAnnotations`). */
export function addAuditAnnotations(ctx: Context, annotations: Readonly<Record<string, string>>): void {
  requestAuditOf(ctx)?.addAnnotations(annotations);
}
