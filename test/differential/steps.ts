/**
 * The differential test's cases as data: a case is a name, setup requests, the request
 * compared and optionally a read after it, each written once for cairn.dev and sent to
 * both servers with the group swapped. Builders below keep the table short.
 */
import type { Answer, Sent } from './client.js';

/** The answers a step may read: those of the steps before it, on the same server. */
export type Earlier = readonly Answer[];

/** A value, or how to compute it from the earlier answers (a resourceVersion, a continue token). */
export type Dynamic<T> = T | ((earlier: Earlier) => T);

/** One request of a case. */
export interface Step {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /**
   * Below the namespace's `pipelines` (`''`, `a`, `a/status`); or, starting with `/`, the
   * whole path, `{group}` and `{namespace}` filled in.
   */
  readonly path?: string;
  readonly query?: Dynamic<string>;
  /** Serialized as JSON unless a string, which is sent as is. */
  readonly body?: Dynamic<unknown>;
  readonly contentType?: string;
  readonly accept?: string;
  /** `v1` unless given. */
  readonly version?: string;
  /** The collection across namespaces (`/apis/{group}/v1/pipelines`). */
  readonly allNamespaces?: boolean;
}

/** One case of the table. */
export interface DiffCase {
  /** Unique; what divergences.ts names. */
  readonly name: string;
  /** Requests that must succeed (2xx) on both servers; not compared. */
  readonly setup?: readonly Step[];
  /** The request compared. */
  readonly request: Step;
  /** A request after it, compared too: what the request left stored. */
  readonly then?: Step;
  /** Run in a namespace where the mutating webhook is on. */
  readonly webhook?: boolean;
  /**
   * Compare only the request's status code and warnings, not its body: for a DELETE whose
   * object goes at once, Cairn answers the object where kube answers a Status (the case
   * `delete: answers the object` compares that), and what matters here is the code.
   */
  readonly statusOnly?: boolean;
}

const resolve = <T>(value: Dynamic<T>, earlier: Earlier): T => (typeof value === 'function' ? (value as (earlier: Earlier) => T)(earlier) : value);

/** Whether `step` is a watch, whose answer is a stream of events. */
export function isWatch(step: Step, earlier: Earlier): boolean {
  return /(^|&)watch=(true|1)(&|$)/.test(resolve(step.query ?? '', earlier));
}

/** `step` as sent to the server of `group`, in `namespace`: the group swapped in the path and the body. */
export function toSent(step: Step, group: string, namespace: string, earlier: Earlier): Sent {
  const version = step.version ?? 'v1';
  const collection = step.allNamespaces ? `/apis/${group}/${version}/pipelines` : `/apis/${group}/${version}/namespaces/${namespace}/pipelines`;
  const path = step.path?.startsWith('/')
    ? step.path.replaceAll('{group}', group).replaceAll('{namespace}', namespace)
    : `${collection}${step.path ? `/${step.path}` : ''}`;
  const query = resolve(step.query ?? '', earlier);
  const body = step.body === undefined ? undefined : resolve(step.body, earlier);
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const defaultType = step.method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  return {
    method: step.method,
    path: query ? `${path}?${query}` : path,
    headers: {
      ...(text === undefined ? {} : { 'Content-Type': step.contentType ?? defaultType }),
      ...(step.accept === undefined ? {} : { Accept: step.accept }),
    },
    body: text?.replaceAll('cairn.dev', group).replaceAll('{namespace}', namespace),
  };
}

// Builders. Objects are written in cairn.dev/v1; `toSent` swaps the group.

/** A Pipeline manifest: one step, class `standard`, and whatever `extra` adds to metadata and spec. */
export function pipeline(
  name: string,
  extra: { metadata?: Record<string, unknown>; spec?: Record<string, unknown>; status?: unknown } = {},
): Record<string, unknown> {
  return {
    apiVersion: 'cairn.dev/v1',
    kind: 'Pipeline',
    metadata: { name, ...extra.metadata },
    spec: { runnerClassName: 'standard', steps: [{ name: 'fetch', image: 'alpine:3.20' }], ...extra.spec },
    ...(extra.status === undefined ? {} : { status: extra.status }),
  };
}

/** POST of `body` (a Pipeline named `body` when a string). */
export const create = (body: unknown, query?: Dynamic<string>, more: Partial<Step> = {}): Step => ({
  method: 'POST',
  body: typeof body === 'string' ? pipeline(body) : body,
  ...(query === undefined ? {} : { query }),
  ...more,
});

/** POST of `text` as it is (malformed JSON, YAML). */
export const createRaw = (text: string, more: Partial<Step> = {}): Step => ({ method: 'POST', body: text, ...more });

/** GET of `path` below the collection. */
export const get = (path = '', query?: Dynamic<string>, more: Partial<Step> = {}): Step => ({
  method: 'GET',
  path,
  ...(query === undefined ? {} : { query }),
  ...more,
});

/** PUT of `body` at `path`. */
export const put = (path: string, body: Dynamic<unknown>, query?: Dynamic<string>, more: Partial<Step> = {}): Step => ({
  method: 'PUT',
  path,
  body,
  ...(query === undefined ? {} : { query }),
  ...more,
});

/** The patch types by their media type. */
export const patchType = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** PATCH of `path` with a patch of `type`. */
export const patch = (path: string, type: keyof typeof patchType, body: Dynamic<unknown>, query?: Dynamic<string>, more: Partial<Step> = {}): Step => ({
  method: 'PATCH',
  path,
  contentType: patchType[type],
  body,
  ...(query === undefined ? {} : { query }),
  ...more,
});

/** DELETE of `path` (the collection when empty), with a DeleteOptions body when given. */
export const del = (path: string, query?: Dynamic<string>, body?: Dynamic<unknown>, more: Partial<Step> = {}): Step => ({
  method: 'DELETE',
  path,
  ...(query === undefined ? {} : { query }),
  ...(body === undefined ? {} : { body }),
  ...more,
});

/** The `metadata` field `key` of the answer `index` (negative from the end) before a step. */
export const metaOf =
  (key: 'resourceVersion' | 'uid' | 'continue', index = -1) =>
  (earlier: Earlier): string =>
    String(earlier.at(index)?.json?.metadata?.[key] ?? '');

/** The Accept of a Table and of PartialObjectMetadata(List). */
export const asTable = 'application/json;as=Table;v=v1;g=meta.k8s.io';
export const asMetadata = 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io';
export const asMetadataList = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io';
