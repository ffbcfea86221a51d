/**
 * metav1.Status and the error that carries one. Every API error Cairn returns is a
 * StatusError; the HTTP layer writes `error.status` as the body and `status.code` as
 * the HTTP status.
 */

/** A `metav1.StatusCause`: one reason a request failed, with the field it concerns. */
export interface StatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

/** `metav1.StatusDetails`. */
export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

/** `metav1.Status`, as kube-apiserver writes it. */
export interface Status {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  readonly metadata: Record<string, never> | { readonly resourceVersion?: string; readonly continue?: string };
  readonly status: 'Success' | 'Failure';
  readonly message?: string;
  readonly reason?: string;
  readonly details?: StatusDetails;
  readonly code: number;
}

/** An error that is answered with its Status. */
export class StatusError extends Error {
  readonly status: Status;
  /** Extra response headers (for example `Retry-After`). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: Status, headers: Readonly<Record<string, string>> = {}) {
    super(status.message ?? status.reason ?? 'error');
    this.name = 'StatusError';
    this.status = status;
    this.headers = headers;
  }

  get code(): number {
    return this.status.code;
  }

  get reason(): string | undefined {
    return this.status.reason;
  }
}

/** StatusDetails as Go's `omitempty` writes them: an empty name, group, kind or uid is left out (an option's 422 has no name). */
function compactDetails({ name, group, kind, uid, ...rest }: StatusDetails): StatusDetails {
  return { ...(name ? { name } : {}), ...(group ? { group } : {}), ...(kind ? { kind } : {}), ...(uid ? { uid } : {}), ...rest };
}

/** Builds a Failure Status without undefined fields. */
export function failureStatus(code: number, reason: string, message: string, details?: StatusDetails): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details ? { details: compactDetails(details) } : {}),
    code,
  };
}

/** Builds a Success Status, as kube answers a write that returns no object (an eviction's 201). */
export function successStatus(code: number, details?: StatusDetails): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', ...(details ? { details } : {}), code };
}

/** Tells whether a value is a StatusError (also across module instances). */
export function isStatusError(error: unknown): error is StatusError {
  return error instanceof StatusError;
}
