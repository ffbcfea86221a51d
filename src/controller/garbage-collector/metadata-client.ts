/**
 * What the garbage collector needs of the API, for any kind the server serves, as
 * client-go's discovery and metadata clients give it to kube's: the served resources
 * (from discovery, never a list written here), and each object's metadata alone
 * (`PartialObjectMetadata`) to list, watch and read, a merge patch, and a delete with
 * a uid precondition and a propagation policy.
 */
import type { APIGroupList, APIResourceList, ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { Client } from 'openapi-fetch';
import { isNotFound } from '../../client/api-error.js';
import type { CairnClient } from '../../client/cairn-client.js';
import type { ListWatch } from '../../client/informer.js';
import { unwrap } from '../../client/unwrap.js';
import { watchPath } from '../../client/watch.js';
import { DEFAULT_LIST_PAGE_SIZE } from '../../client/list-watch.js';

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
 * for (const resource of await metadata.discover(signal)) new Informer(metadata.listWatch(resource));
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
   * List and watch of `resource`'s metadata across all namespaces, for an Informer: the
   * list in pages of `pageSize` (one snapshot, as client-go's pager reads it), so no
   * response grows with the collection.
   */
  listWatch(resource: ServedResource, watchTimeoutSeconds?: number, pageSize = DEFAULT_LIST_PAGE_SIZE): ListWatch<MetadataObject> {
    const path = collectionPath(resource);
    return {
      list: async (signal) => {
        const items: MetadataObject[] = [];
        let resourceVersion = '';
        let token: string | undefined;
        do {
          const page = await call<{ items: MetadataObject[] | null; metadata?: { resourceVersion?: string; continue?: string } }>(this.#api, 'GET', path, {
            params: { query: { limit: pageSize, continue: token } },
            signal,
            headers: { Accept: metadataListAccept },
          });
          // An empty PartialObjectMetadataList's items are null, from kube-apiserver as from Cairn.
          for (const item of page.items ?? []) items.push(item);
          // Every page is of the first page's snapshot and carries its resourceVersion.
          resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
          token = page.metadata?.continue || undefined;
        } while (token !== undefined);
        return { items, resourceVersion };
      },
      watch: (resourceVersion, signal) =>
        watchPath<MetadataObject>(this.#api, path, { resourceVersion, signal, timeoutSeconds: watchTimeoutSeconds, accept: metadataAccept }),
    };
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

  /** Deletes the object if its uid is still `uid`, with `propagationPolicy`. */
  async delete(location: ObjectLocation, uid: string, propagationPolicy: 'Foreground' | 'Background' | 'Orphan'): Promise<void> {
    await call(this.#api, 'DELETE', objectPath(location), {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid }, propagationPolicy },
    });
  }
}
