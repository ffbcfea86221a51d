/**
 * The registry: for every served resource, its Store and the REST objects of its
 * subresources (status, scale, log), sharing one schema validator.
 */
import type { ApiGroup, ApiResource } from '../apis/api-resource.js';
import type { JsonSchema } from '../machinery/json-schema.js';
import { metaSchemas } from '../machinery/types/meta-schemas.js';
import { scaleSchemas } from '../machinery/types/scale.js';
import type { ObjectStore } from '../storage/interfaces.js';
import { LogREST } from './log-rest.js';
import { resourceStorage } from './resource-storage.js';
import { ScaleREST } from './scale-rest.js';
import { SchemaValidator } from './schema-validator.js';
import { statusStrategy } from './status-strategy.js';
import { Store } from './store.js';

/** Every component schema of the groups, with the meta types they refer to. */
export function componentSchemas(groups: readonly ApiGroup[]): Record<string, JsonSchema> {
  const components: Record<string, JsonSchema> = { ...metaSchemas, ...scaleSchemas };
  for (const group of groups) {
    for (const resource of group.resources) {
      for (const version of resource.versions) components[version.schemaName] = version.schema;
    }
  }
  return components;
}

/** One resource's storage endpoints: the main store and one REST object per subresource it serves. */
export interface ResourceStorages {
  readonly resource: ApiResource;
  readonly store: Store;
  /** `/status`: the store with the status strategy. */
  readonly status?: Store;
  readonly scale?: ScaleREST;
  readonly log?: LogREST;
}

/** The storages of every served resource. */
export class Registry {
  readonly groups: readonly ApiGroup[];
  /** The validator of every component schema; its resolver serves patches and field ownership too. */
  readonly validator: SchemaValidator;
  readonly #resources = new Map<string, ResourceStorages>();

  constructor(groups: readonly ApiGroup[], objectStore: ObjectStore) {
    this.groups = groups;
    this.validator = new SchemaValidator(componentSchemas(groups));
    for (const group of groups) {
      for (const resource of group.resources) {
        const storage = resourceStorage(objectStore, resource);
        const store = new Store({ resource, strategy: resource.strategy, storage, validator: this.validator });
        const { subresources } = resource;
        this.#resources.set(`${resource.group}/${resource.plural}`, {
          resource,
          store,
          ...(subresources.status ? { status: store.withStrategy(statusStrategy(resource.strategy)) } : {}),
          ...(subresources.scale ? { scale: new ScaleREST(store, subresources.scale) } : {}),
          ...(subresources.log ? { log: new LogREST(resource, subresources.log, storage) } : {}),
        });
      }
    }
  }

  /** The storages of `plural` in `group`, if served. */
  storages(group: string, plural: string): ResourceStorages | undefined {
    return this.#resources.get(`${group}/${plural}`);
  }
}
