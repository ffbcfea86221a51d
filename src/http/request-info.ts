/**
 * Parses a resource path under `/apis/<group>/<version>/` into what kube's
 * RequestInfo holds: namespace, resource, name, subresource and verb.
 */
import { badRequest } from '../machinery/errors.js';
import { validatePathSegmentName } from '../machinery/names.js';

/** A request for a resource. */
export interface ResourceRequest {
  readonly group: string;
  readonly version: string;
  /** Undefined for cluster-scoped resources and for lists across all namespaces. */
  readonly namespace?: string;
  readonly resource: string;
  readonly name?: string;
  readonly subresource?: string;
  /** get, list, watch, create, update, patch, delete */
  readonly verb: string;
}

/**
 * Subresources served under a second name. `logs` is `log`, for clients that use the
 * plural: one name for authorization (`create pipelines/log`) and routing.
 */
const subresourceAliases: Readonly<Record<string, string>> = { logs: 'log' };

function checkSegment(kind: string, value: string): string {
  const problems = validatePathSegmentName(value);
  if (problems.length) throw badRequest(`${kind} "${value}": ${problems.join(', ')}`);
  return value;
}

/** A %-decoded path segment; 400 for a broken escape, as Go's URL parser refuses it. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest(`invalid URL escape in path segment "${segment}"`);
  }
}

/** Parses the part after the group and version; undefined when it names no resource. */
export function parseResourcePath(group: string, version: string, rest: readonly string[], method: string, watch: boolean): ResourceRequest | undefined {
  let segments = rest.map(decodeSegment);
  // The legacy `/watch/` prefix: a watch of the collection, or of one object by name.
  const legacyWatch = segments[0] === 'watch';
  if (legacyWatch) {
    if (method !== 'GET' && method !== 'HEAD') return undefined;
    segments = segments.slice(1);
  }
  let namespace: string | undefined;
  if (segments[0] === 'namespaces' && segments.length >= 3) {
    namespace = checkSegment('namespace', segments[1]!);
    segments = segments.slice(2);
  }
  const [resource, name, subresource, ...extra] = segments;
  if (!resource || extra.length) return undefined;
  if (name !== undefined) checkSegment('name', name);
  let verb: string;
  switch (method) {
    case 'GET':
    case 'HEAD':
      verb = legacyWatch ? 'watch' : name === undefined ? (watch ? 'watch' : 'list') : 'get';
      break;
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = name === undefined ? 'deletecollection' : 'delete';
      break;
    default:
      verb = method.toLowerCase();
  }
  return { group, version, namespace, resource, name, subresource: subresource && (subresourceAliases[subresource] ?? subresource), verb };
}
