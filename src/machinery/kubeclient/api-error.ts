/**
 * The errors a client of a Kubernetes API server throws for a failed request: every answer other than 2xx
 * becomes an ApiError carrying the server's `metav1.Status`, and a `410 Gone`
 * (`reason: Expired`, a resourceVersion older than the server's history) becomes a
 * ResourceExpiredError, on which an informer relists.
 */

/** `metav1.Status`, as every Kubernetes API server answers a failed request. */
export interface Status {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number; selfLink?: string };
  /** `Success` or `Failure`. */
  status?: string;
  message?: string;
  /** Why it failed, e.g. `NotFound`, `Conflict`, `Expired`. */
  reason?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
  /** The HTTP status code. */
  code?: number;
}

/** A request the server refused or failed, with its Status. */
export class ApiError extends Error {
  readonly status: Status;

  constructor(status: Status) {
    super(status.message || status.reason || `HTTP ${status.code}`);
    this.name = 'ApiError';
    this.status = status;
  }

  /** The HTTP status code. */
  get code(): number {
    return this.status.code ?? 0;
  }

  /** The Status reason, e.g. `NotFound`, `Conflict`, `Expired`. */
  get reason(): string | undefined {
    return this.status.reason;
  }
}

/** 410 Gone: the resourceVersion asked for is no longer in the server's history; list again. */
export class ResourceExpiredError extends ApiError {
  constructor(status: Status) {
    super(status);
    this.name = 'ResourceExpiredError';
  }
}

/** The error for a response with HTTP status `code` and `body` (a Status, or anything a proxy may answer). */
export function apiError(code: number, body: unknown): ApiError {
  const status: Status = isStatus(body)
    ? { ...body, code: body.code ?? code }
    : { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, message: typeof body === 'string' && body ? body : `HTTP ${code}` };
  return status.code === 410 ? new ResourceExpiredError(status) : new ApiError(status);
}

function isStatus(body: unknown): body is Status {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'Status';
}

/**
 * Whether `error` is a 404 NotFound; given `name`, one of the object so named, which
 * tells a missing object from a path the server does not serve (no `details.name`).
 */
export function isNotFound(error: unknown, name?: string): boolean {
  return error instanceof ApiError && error.code === 404 && error.reason === 'NotFound' && (name === undefined || error.status.details?.name === name);
}

/** Whether `error` is a 409 Conflict: the object changed since it was read (a stale resourceVersion). */
export function isConflict(error: unknown): boolean {
  return error instanceof ApiError && error.code === 409 && error.reason === 'Conflict';
}
