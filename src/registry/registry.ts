/**
 * The registry: one Store per served resource, sharing one schema validator.
 */
import type { ApiGroup } from '../apis/api-resource.js';
import type { JsonSchema } from '../machinery/json-schema.js';
import { metaSchemas } from '../machinery/meta-schemas.js';
import { scaleSchemas } from '../machinery/scale.js';
import type { ObjectStore } from '../storage/object-store.js';
import { SchemaValidator } from './schema-validator.js';
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

/** The stores of every served resource. */
export class Registry {
  readonly groups: readonly ApiGroup[];
  readonly #stores = new Map<string, Store>();

  constructor(groups: readonly ApiGroup[], objectStore: ObjectStore) {
    this.groups = groups;
    const validator = new SchemaValidator(componentSchemas(groups));
    for (const group of groups) {
      for (const resource of group.resources) {
        const storage = objectStore.forResource(`${resource.plural}.${resource.group}`, (o) => resource.strategy.selectableFields(o));
        this.#stores.set(`${resource.group}/${resource.plural}`, new Store(resource, storage, validator));
      }
    }
  }

  /** The store of `plural` in `group`, if served. */
  store(group: string, plural: string): Store | undefined {
    return this.#stores.get(`${group}/${plural}`);
  }

}
