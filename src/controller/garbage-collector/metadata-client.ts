/**
 * What the garbage collector needs of the API, for any kind the server serves, as
 * client-go's discovery and metadata clients give it to kube's: the served resources
 * (from discovery, never a list written here), and each object's metadata alone
 * (`PartialObjectMetadata`) to list a page at a time (with field selectors), watch and read, a merge patch, and a delete with
 * a uid precondition and a propagation policy.
 */
import type { APIGroupList, APIResourceList, ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { Client } from 'openapi-fetch';
import { isNotFound } from '../../machinery/kubeclient/api-error.js';
import type { CairnClient } from '../../client/cairn-client.js';
import { unwrap } from '../../client/unwrap.js';
import type { WatchEvent } from '../../machinery/kubeclient/list-watch.js';
import { watchPath } from '../../client/watch.js';
import { DEFAULT_LIST_PAGE_SIZE } from '../../client/list-watch.js';
import { pager } from '../../machinery/kubeclient/pager.js';

/** An object as the metadata client sees it: kube's `PartialObjectMetadata`. */
export interface MetadataObject {
  readonly metadata?: ObjectMeta;
}

/** A collection the server serves, as discovery describes it. */
export interface ServedResource {
  readonly group: string;
  /** The group's preferred version, which the collector reads and writes through. */
  readonly version: string;
  /** The plural, e.g. `pipelines`. */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

/** What one page of a list asks for. */
export interface ListOptions {
  readonly fieldSelector?: string;
  readonly limit: number;
  readonly continue?: string;
}

/** One page of a list. */
export interface MetadataPage {
  readonly items: readonly MetadataObject[];
  readonly resourceVersion: string;
  readonly continue?: string;
}

/** A JSON merge patch of ObjectMeta: null removes a field. */
export type MetadataPatch = { readonly [K in keyof ObjectMeta]?: ObjectMeta[K] | null };

/** Where one object lives. */
export interface ObjectLocation {
  readonly resource: ServedResource;
  readonly namespace?: string;
  readonly name: string;
}

const metadataAccept = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const metadataListAccept = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
/** The verbs the collector uses on a collection: one it cannot watch, patch and delete is not collected. */
const neededVerbs = ['list', 'watch', 'get', 'patch', 'delete'];

type Method = 'GET' | 'PATCH' | 'DELETE';
type Untyped = (path: string, init: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** A request to a path the OpenAPI types cannot name (it comes from discovery). */
function call<T>(api: Client<never>, method: Method, path: string, init: object): Promise<T> {
  return unwrap((api[method] as unknown as Untyped)(path, init)) as Promise<T>;
}

/** `/apis/GROUP/VERSION`, or `/api/v1` for the core group. */
function groupVersionPath(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

/** The path of a collection across all namespaces. */
function collectionPath(resource: ServedResource): string {
  return `${groupVersionPath(resource.group, resource.version)}/${resource.resource}`;
}

function objectPath({ resource, namespace, name }: ObjectLocation): string {
  const scope = resource.namespaced ? `/namespaces/${encodeURIComponent(namespace ?? '')}` : '';
  return `${groupVersionPath(resource.group, resource.version)}${scope}/${resource.resource}/${encodeURIComponent(name)}`;
}

/**
 * The metadata of every served kind through one client.
 *
 * @example
 * const metadata = new MetadataClient(client);
 * for (const resource of await metadata.discover(signal)) for await (const page of metadata.pages(resource, 'metadata.ownerReferences.uid!=')) check(page);
 */
export class MetadataClient {
  readonly #api: Client<never>;

  constructor(client: CairnClient) {
    this.#api = client.api;
  }

  /** The served collections that can be listed, watched, patched and deleted, each in its group's preferred version. */
  async discover(signal: AbortSignal): Promise<ServedResource[]> {
    const groups = await call<APIGroupList>(this.#api, 'GET', '/apis', { signal, headers: { Accept: 'application/json' } });
    const served: ServedResource[] = [];
    for (const group of groups.groups) {
      const version = group.preferredVersion?.version ?? group.versions[0]?.version;
      if (version === undefined) continue;
      const list = await call<APIResourceList>(this.#api, 'GET', groupVersionPath(group.name, version), { signal, headers: { Accept: 'application/json' } });
      for (const r of list.resources) {
        if (r.name.includes('/') || !neededVerbs.every((verb) => r.verbs.includes(verb))) continue;
        served.push(Object.freeze({ group: group.name, version, resource: r.name, kind: r.kind, namespaced: r.namespaced }));
      }
    }
    return served;
  }

  /**
   * One page of `resource`'s metadata across all namespaces: up to `limit` objects
   * matching `fieldSelector`, from the snapshot of `continueToken` when given.
   */
  async list(resource: ServedResource, options: ListOptions, signal?: AbortSignal): Promise<MetadataPage> {
    const page = await call<{ items: MetadataObject[] | null; metadata?: { resourceVersion?: string; continue?: string } }>(
      this.#api,
      'GET',
      collectionPath(resource),
      {
        params: { query: { limit: options.limit, continue: options.continue, fieldSelector: options.fieldSelector } },
        signal,
        headers: { Accept: metadataListAccept },
      },
    );
    // An empty PartialObjectMetadataList's items are null, from kube-apiserver as from Cairn.
    return { items: page.items ?? [], resourceVersion: page.metadata?.resourceVersion ?? '', continue: page.metadata?.continue || undefined };
  }

  /**
   * Every object of `resource` matching `fieldSelector`, a page of `pageSize` at a time
   * (one snapshot, as client-go's pager reads it): only one page is held at once.
   */
  async *pages(
    resource: ServedResource,
    fieldSelector: string,
    pageSize = DEFAULT_LIST_PAGE_SIZE,
    signal?: AbortSignal,
  ): AsyncGenerator<readonly MetadataObject[]> {
    for await (const page of pager(
      (token) => this.list(resource, { fieldSelector, limit: pageSize, continue: token }, signal),
      (page) => page.continue,
    )) {
      yield page.items;
    }
  }

  /** The changes of `resource`'s metadata after `resourceVersion`, until `signal` aborts; throws ResourceExpiredError on 410. */
  watch(resource: ServedResource, resourceVersion: string, signal: AbortSignal, timeoutSeconds?: number): AsyncIterable<WatchEvent<MetadataObject>> {
    return watchPath<MetadataObject>(this.#api, collectionPath(resource), { resourceVersion, signal, timeoutSeconds, accept: metadataAccept });
  }

  /** The object's metadata now, or undefined when there is no such object. */
  async get(location: ObjectLocation, signal?: AbortSignal): Promise<MetadataObject | undefined> {
    try {
      return await call<MetadataObject>(this.#api, 'GET', objectPath(location), { signal, headers: { Accept: metadataAccept } });
    } catch (error) {
      if (isNotFound(error, location.name)) return undefined;
      throw error;
    }
  }

  /** Applies a JSON merge patch of the object's metadata. */
  async patchMetadata(location: ObjectLocation, metadata: MetadataPatch): Promise<void> {
    await call(this.#api, 'PATCH', objectPath(location), { body: { metadata }, headers: { 'Content-Type': 'application/merge-patch+json' } });
  }

  /**
   * Deletes the object if its uid is still `uid` (and, when given, its resourceVersion
   * still `resourceVersion`: unchanged since it was read), with `propagationPolicy`.
   * A precondition that fails answers 409 Conflict.
   */
  async delete(location: ObjectLocation, uid: string, propagationPolicy: 'Foreground' | 'Background' | 'Orphan', resourceVersion?: string): Promise<void> {
    await call(this.#api, 'DELETE', objectPath(location), {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid, resourceVersion }, propagationPolicy },
    });
  }
}
