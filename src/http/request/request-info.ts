/**
 * What a request is, before anyone handles it: kube's RequestInfo, computed for every
 * path as k8s.io/apiserver's `RequestInfoFactory` does. Authentication, audit,
 * authorization, metrics and the resource routes all read this one answer.
 */
import { badRequest } from '../../machinery/errors.js';
import { parseFieldSelector } from '../../machinery/selectors/field-selector.js';
import { validatePathSegmentName } from '../../machinery/meta/names.js';
import { SelectorParseError } from '../../machinery/selectors/selector-parse-error.js';
import type { EndpointTable } from '../../registry/endpoints.js';
import { isWatch, type Query } from './query.js';

/**
 * kube's `request.RequestInfo`. Resource requests are those under `/apis/<group>/<version>/`
 * and `/api/<version>/`; anything else (`/healthz`, `/apis`, `/openapi/v3`) is a
 * non-resource request whose verb is the lower-case HTTP method. Absent parts are ''.
 */
export interface RequestInfo {
  readonly isResourceRequest: boolean;
  /** The path as received (still %-encoded), the form the routes match. */
  readonly path: string;
  /** get, list, watch, create, update, patch, delete, deletecollection (or proxy); the lower-case method off resources. */
  readonly verb: string;
  /** `apis` or `api`; '' off resources. */
  readonly apiPrefix: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly namespace: string;
  readonly resource: string;
  /** The subresource under its canonical name (`logs` is `log`). */
  readonly subresource: string;
  /** The object named by the path, or by a `metadata.name=` field selector of a list or watch. */
  readonly name: string;
  /** The %-decoded path segments from the resource on: resource, name, subresource, and whatever follows. */
  readonly parts: readonly string[];
  /** Whether kube's `BasicLongRunningRequestCheck` holds it long-running (see {@link isLongRunning}). */
  readonly longRunning: boolean;
}

/**
 * What RequestInfo reads of the served subresources, as kube configures its
 * RequestInfoFactory and long-running check: the second names some are served under
 * (`logs` is `log`: one name for authorization, `create pipelines/log`, and routing), and
 * those whose requests are long-running (a log, which streams, as `pods/log`).
 */
export interface SubresourceNames {
  readonly aliases: ReadonlyMap<string, string>;
  readonly longRunning: ReadonlySet<string>;
}

/** The names of the subresources `endpoints` serve. */
export function subresourceNamesOf(endpoints: EndpointTable): SubresourceNames {
  return {
    aliases: new Map(endpoints.all.flatMap((e) => e.aliases.map((alias) => [alias, e.subresource] as const))),
    longRunning: new Set(endpoints.all.filter((e) => e.streams).map((e) => e.subresource)),
  };
}

/** Prefixes under which paths name resources; the groupless one carries no group segment. */
const apiPrefixes: ReadonlySet<string> = new Set(['api', 'apis']);
const grouplessApiPrefixes: ReadonlySet<string> = new Set(['api']);
/** Path segments that are verbs, not resources: `/apis/g/v/watch/…` (legacy watch) and `proxy`. */
const specialVerbs: ReadonlySet<string> = new Set(['proxy', 'watch']);
/** Subresources of a namespace itself (`/namespaces/ns/status`), not resources inside it. */
const namespaceSubresources: ReadonlySet<string> = new Set(['status', 'finalize']);

/** A %-decoded path segment; 400 for a broken escape, as Go's URL parser refuses it. */
function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest(`invalid URL escape in path segment "${segment}"`);
  }
}

function verbOfMethod(method: string): string {
  switch (method) {
    case 'POST':
      return 'create';
    case 'GET':
    case 'HEAD':
      return 'get';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return '';
  }
}

/** What follows `<prefix>/<group>/<version>/`, read as kube's RequestInfoFactory reads it. */
interface ResourcePath {
  readonly verb: string;
  readonly namespace: string;
  readonly parts: readonly string[];
  /** Whether the verb came from the path (`/watch/`), not from the method. */
  readonly verbInPath: boolean;
}

/** Reads verb, namespace and parts from the %-decoded segments after the version; 400 for a bare special verb. */
function readResourcePath(method: string, segments: readonly string[], watch: boolean): ResourcePath {
  let current = segments;
  let verb: string;
  const verbInPath = specialVerbs.has(current[0]);
  if (verbInPath) {
    if (current.length < 2) throw badRequest(`unable to determine kind and namespace from the path: /${segments.join('/')}`);
    verb = current[0]!;
    current = current.slice(1);
  } else {
    verb = verbOfMethod(method);
  }
  let namespace = '';
  if (current[0] === 'namespaces' && current.length > 1) {
    namespace = current[1]!;
    if (current.length > 2 && !namespaceSubresources.has(current[2])) current = current.slice(2);
  }
  // A GET without a name reads the collection; DELETE without a name deletes it.
  if (current.length < 2 && verb === 'get') verb = watch ? 'watch' : 'list';
  if (current.length < 2 && verb === 'delete') verb = 'deletecollection';
  return { verb, namespace, parts: current, verbInPath };
}

/** The object a list or watch names with a `metadata.name=` field selector, as kube reads it for authorization. */
function selectedName(query: Query): string {
  const text = query.get('fieldSelector');
  if (!text) return '';
  try {
    const term = parseFieldSelector(text).find((r) => r.field === 'metadata.name' && r.operator === '=');
    return term && validatePathSegmentName(term.value).length === 0 ? term.value : '';
  } catch (error) {
    // A selector kube cannot parse names nothing here; the list itself answers the 400.
    if (error instanceof SelectorParseError) return '';
    throw error;
  }
}

/** What kube's `BasicLongRunningRequestCheck` counts as long-running: watches, and the subresources that stream (as `pods/log`), whatever the verb. */
export function isLongRunning(info: RequestInfo | undefined): boolean {
  return info?.longRunning === true;
}

/**
 * Computes the RequestInfo of a request; 400 when its path cannot be read (a broken
 * %-escape, a bare `/watch`).
 */
export function newRequestInfo(method: string, path: string, query: Query, subresources: SubresourceNames): RequestInfo {
  // As kube's splitPath: leading and trailing slashes do not make segments.
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  const segments = trimmed === '' ? [] : trimmed.split('/').map(decodeSegment);
  const nonResource: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
    longRunning: false,
  };
  const [prefix = ''] = segments;
  const groupless = grouplessApiPrefixes.has(prefix);
  // A resource path has a prefix, a group (unless groupless), a version and at least a resource.
  if (!apiPrefixes.has(prefix) || segments.length < (groupless ? 3 : 4)) return nonResource;
  const apiGroup = groupless ? '' : segments[1];
  const apiVersion = segments[groupless ? 1 : 2];
  const resourcePath = readResourcePath(method, segments.slice(groupless ? 2 : 3), isWatch(query));
  const { parts, verb } = resourcePath;
  const listing = verb === 'list' || verb === 'watch';
  // `proxy` passes everything after the name to the proxied object; it has no subresource.
  const subresource = verb === 'proxy' || parts[2] === undefined ? '' : (subresources.aliases.get(parts[2]) ?? parts[2]);
  return {
    isResourceRequest: true,
    path,
    verb,
    apiPrefix: prefix,
    apiGroup,
    apiVersion,
    namespace: resourcePath.namespace,
    resource: parts[0] ?? '',
    subresource,
    name: parts[1] ?? (listing && !resourcePath.verbInPath ? selectedName(query) : ''),
    parts,
    longRunning: verb === 'watch' || subresources.longRunning.has(subresource),
  };
}
