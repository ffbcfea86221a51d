/**
 * The registry: for every served resource, its Store; for every served endpoint, its
 * scope and REST object (the endpoint table, `endpoints.ts`), all sharing one schema validator.
 */
import type { ApiGroup } from '../apis/api-resource.js';
import { componentSchemas } from '../apis/component-schemas.js';
import type { ObjectLookup } from '../apis/admission.js';
import type { KubeObject } from '../machinery/meta/object.js';
import { StatusError } from '../machinery/status.js';
import type { ObjectStore } from '../storage/interfaces.js';
import { servedEndpoints, type EndpointTable, type ResourceStores, type ServedEndpoint } from './endpoints.js';
import { resourceStorage } from './resource-storage.js';
import { SchemaValidator } from './schema-validator.js';
import { statusStrategy } from './status-strategy.js';
import { Store } from './store.js';

/** The stores of every served resource, and the endpoints they serve. */
export class Registry {
  readonly groups: readonly ApiGroup[];
  /** The validator of every component schema; its resolver serves patches and field ownership too. */
  readonly validator: SchemaValidator;
  /** Every served endpoint with its scope and REST object, made once here. */
  readonly endpoints: EndpointTable<ServedEndpoint>;
  readonly #resources = new Map<string, ResourceStores>();

  constructor(groups: readonly ApiGroup[], objectStore: ObjectStore) {
    this.groups = groups;
    this.validator = new SchemaValidator(componentSchemas(groups));
    for (const group of groups) {
      for (const resource of group.resources) {
        const storage = resourceStorage(objectStore, resource);
        const store = new Store({ resource, strategy: resource.strategy, storage, validator: this.validator });
        this.#resources.set(`${resource.group}/${resource.plural}`, {
          resource,
          store,
          storage,
          ...(resource.subresources.status ? { status: store.withStrategy(statusStrategy(resource.strategy)) } : {}),
        });
      }
    }
    this.endpoints = servedEndpoints(groups, (resource) => this.storages(resource.group, resource.plural)!, this.validator);
  }

  /** The stores of `plural` in `group`, in the storage version, if served. */
  storages(group: string, plural: string): ResourceStores | undefined {
    return this.#resources.get(`${group}/${plural}`);
  }

  /**
   * Creates each resource's bootstrap objects through its Store when the resource has
   * no object at all, as kube-apiserver's post-start hooks do; another server sharing
   * the database may have created them first.
   */
  async bootstrap(): Promise<void> {
    for (const { resource, store } of this.#resources.values()) {
      const objects = resource.bootstrapObjects ?? [];
      if (objects.length === 0 || (await store.list(undefined, { resourceVersion: '', limit: 1 })).items.length > 0) continue;
      // Cairn's own writes, with no request: no manager, no user.
      const origin = { operation: 'create', subresource: '', fieldManager: '', user: '' } as const;
      for (const object of objects) {
        await store
          .create(object.metadata?.namespace ?? '', structuredClone<KubeObject>(object), () => {}, { dryRun: false, origin })
          .catch(ignoreAlreadyExists);
      }
    }
  }
}

function ignoreAlreadyExists(error: unknown): void {
  if (!(error instanceof StatusError && error.code === 409 && error.status.reason === 'AlreadyExists')) throw error;
}

/** The object, or undefined when there is none. */
async function found(get: Promise<KubeObject>): Promise<KubeObject | undefined> {
  try {
    return await get;
  } catch (error) {
    if (error instanceof StatusError && error.code === 404) return undefined;
    throw error;
  }
}

/**
 * `group`'s objects as its admission plugins read them: from the watch cache
 * (`resourceVersion: 0`), as kube's plugins read informer listers; an object the cache
 * does not have yet is read again consistently, as kube's NamespaceLifecycle asks the
 * server about a namespace its informer has not seen, so one just created is found.
 */
export function objectLookup(registry: () => Registry | undefined, group: string): ObjectLookup {
  return async (resource, namespace, name) => {
    const storages = registry()?.storages(group, resource);
    if (!storages) throw new Error(`${resource}.${group} is not served yet`);
    const key = { namespace, name };
    return (await found(storages.store.get(key, { resourceVersion: '0' }))) ?? found(storages.store.get(key));
  };
}
