/**
 * The catalogue of every API error, each building the `metav1.Status` kube-apiserver
 * would answer with. Messages follow apimachinery's `k8s.io/apimachinery/pkg/api/errors`.
 */
import { fieldPath, invalid as invalidField, type FieldError } from './field-errors.js';
import { failureStatus, StatusError, type StatusCause } from './status.js';

// The Status errors' callers name field errors here, beside the errors that carry them.
export type { FieldError };

/** Names the resource an error concerns: `pipelines.cairn.dev "ingest"`. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/** Formats a GroupResource the way kube does in messages (`pipelines.cairn.dev`). */
export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/** 404 NotFound. */
export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(
    failureStatus(404, 'NotFound', `${qualifiedResource(gr)} "${name}" not found`, {
      name,
      group: gr.group,
      kind: gr.resource,
    }),
  );
}

/** 404 NotFound for a path that serves nothing. */
export function pathNotFound(): StatusError {
  return new StatusError(failureStatus(404, 'NotFound', 'the server could not find the requested resource', {}));
}

/** 409 AlreadyExists. */
export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(
    failureStatus(409, 'AlreadyExists', `${qualifiedResource(gr)} "${name}" already exists`, {
      name,
      group: gr.group,
      kind: gr.resource,
    }),
  );
}

/** 409 Conflict, e.g. a stale resourceVersion. */
export function conflict(gr: GroupResource, name: string, cause: string): StatusError {
  return new StatusError(
    failureStatus(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${cause}`, {
      name,
      group: gr.group,
      kind: gr.resource,
    }),
  );
}

/**
 * 409 Conflict of a delete whose precondition the object fails, as kube's
 * `rest.BeforeDelete` words it: it names the kind (`Pipeline.cairn.dev`, and `kind:
 * Pipeline` in the details) where other conflicts name the resource.
 */
export function deletePreconditionFailed(
  group: string,
  kind: string,
  name: string,
  precondition: 'UID' | 'ResourceVersion',
  expected: string,
  actual: string,
): StatusError {
  const why = precondition === 'UID' ? 'The object might have been deleted and then recreated' : 'The object might have been modified';
  return conflict(
    { group, resource: kind },
    name,
    `the ${precondition} in the precondition (${expected}) does not match the ${precondition} in record (${actual}). ${why}`,
  );
}

/**
 * 409 Conflict of an update whose body's uid is not the object's. kube checks it as a
 * storage precondition, and its message is the storage error's, naming the key etcd
 * would hold the object under (`/registry/<group>/<resource>/<namespace>/<name>`).
 */
export function updatePreconditionFailed(gr: GroupResource, name: string, storageKey: string, expected: string, actual: string): StatusError {
  return conflict(
    gr,
    name,
    `StorageError: invalid object, Code: 4, Key: ${storageKey}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${expected}, UID in object meta: ${actual}`,
  );
}

/** The message kube uses for a stale resourceVersion. */
export const optimisticLockMessage = 'the object has been modified; please apply your changes to the latest version and try again';

/**
 * Field errors as kube's `ErrorList.ToAggregate().Error()` prints them, inside messages:
 * `spec.replicas: Invalid value: -1: …`, several in brackets.
 */
export function fieldErrorsText(errors: readonly FieldError[]): string {
  const summary = errors.map((e) => `${e.field}: ${e.message}`);
  return summary.length === 1 ? summary[0] : `[${summary.join(', ')}]`;
}

/** 422 Invalid with one cause per field error; the kind printed as kube's `GroupKind.String()` (no dot without a group). */
export function invalid(kind: string, group: string, name: string, errors: readonly FieldError[]): StatusError {
  const causes: StatusCause[] = errors.map((e) => ({ reason: e.reason, message: e.message, field: e.field }));
  const groupKind = group ? `${kind}.${group}` : kind;
  return new StatusError(
    failureStatus(422, 'Invalid', `${groupKind} "${name}" is invalid: ${fieldErrorsText(errors)}`, {
      name,
      group,
      kind,
      causes,
    }),
  );
}

/**
 * 422 Invalid of a patch whose result does not decode, as kube's patcher builds it: on no kind
 * and no name (` "" is invalid`), one cause on the field `patch`, whose value is `quoted` (the
 * patched object, or the patch) and whose detail is the decoder's error.
 */
export function patchInvalid(quoted: string, detail: string): StatusError {
  return invalid('', '', '', [invalidField(fieldPath('patch'), quoted, detail)]);
}

/** 422 Invalid without field causes: a patch that decodes but cannot be applied. */
export function unprocessable(message: string): StatusError {
  return new StatusError(failureStatus(422, 'Invalid', message));
}

/**
 * 422 Invalid as kube's `NewGenericServerResponse` builds it, for a JSON Patch that
 * cannot be applied: a fixed message and empty details; what went wrong is not said.
 */
export function requestRejected(): StatusError {
  return new StatusError(failureStatus(422, 'Invalid', 'the server rejected our request due to an error in our request', {}));
}

/** 400 BadRequest. */
export function badRequest(message: string): StatusError {
  return new StatusError(failureStatus(400, 'BadRequest', message));
}

/** 401 Unauthorized. */
export function unauthorized(message = 'Unauthorized'): StatusError {
  return new StatusError(failureStatus(401, 'Unauthorized', message));
}

/**
 * 403 Forbidden, as apimachinery's `NewForbidden`: `pipelines.cairn.dev "x" is forbidden: <why>`,
 * or `forbidden: <why>` when no resource is concerned (a non-resource path).
 */
export function forbidden(gr: GroupResource, name: string, why: string): StatusError {
  const resource = qualifiedResource(gr);
  const message = resource === '' ? `forbidden: ${why}` : name === '' ? `${resource} is forbidden: ${why}` : `${resource} "${name}" is forbidden: ${why}`;
  return new StatusError(
    failureStatus(403, 'Forbidden', message, {
      ...(name ? { name } : {}),
      ...(gr.group ? { group: gr.group } : {}),
      ...(gr.resource ? { kind: gr.resource } : {}),
    }),
  );
}

/**
 * 405 MethodNotAllowed for a path that does not take the request's method (POST to an object,
 * PUT to a collection), as kube's router answers it (go-restful's error, `NewGenericServerResponse`).
 */
export function methodNotAllowed(): StatusError {
  return new StatusError(failureStatus(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}));
}

/** 406 NotAcceptable. */
export function notAcceptable(supported: readonly string[]): StatusError {
  return new StatusError(failureStatus(406, 'NotAcceptable', `only the following media types are accepted: ${supported.join(', ')}`));
}

/** 415 UnsupportedMediaType; as kube's negotiation error, it has no details (not even the type refused). */
export function unsupportedMediaType(supported: readonly string[]): StatusError {
  return new StatusError(
    failureStatus(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${supported.join(', ')}`),
  );
}

/** 410 Gone with reason Expired: a resourceVersion older than the retained history. */
export function expired(message: string): StatusError {
  return new StatusError(failureStatus(410, 'Expired', message));
}

/** 410 for a continue token whose snapshot was compacted, carrying a token that continues from the newest state. */
export function continueExpired(freshToken: string): StatusError {
  const status = failureStatus(
    410,
    'Expired',
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
  );
  return new StatusError({ ...status, metadata: { continue: freshToken } });
}

/** 413 RequestEntityTooLarge. */
export function requestEntityTooLarge(message: string): StatusError {
  return new StatusError(failureStatus(413, 'RequestEntityTooLarge', message));
}

/** 429 TooManyRequests with Retry-After. */
export function tooManyRequests(retryAfterSeconds: number): StatusError {
  return new StatusError(failureStatus(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds }), {
    'Retry-After': String(retryAfterSeconds),
  });
}

/** 503 ServiceUnavailable with Retry-After. */
export function serviceUnavailable(message: string, retryAfterSeconds = 1): StatusError {
  return new StatusError(failureStatus(503, 'ServiceUnavailable', message, { retryAfterSeconds }), { 'Retry-After': String(retryAfterSeconds) });
}

/** 500 InternalError; the message never carries an unknown error's text. */
export function internal(message = 'an error on the server has prevented the request from succeeding'): StatusError {
  return new StatusError(
    failureStatus(500, 'InternalError', `Internal error occurred: ${message}`, {
      causes: [{ message }],
    }),
  );
}

/** 504 Timeout for a resourceVersion newer than the server has, as kube's watch cache answers it. */
export function tooLargeResourceVersion(message: string): StatusError {
  return new StatusError(
    failureStatus(504, 'Timeout', `Timeout: ${message}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    }),
    { 'Retry-After': '1' },
  );
}
