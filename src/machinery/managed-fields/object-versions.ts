/**
 * The objects of one write seen in the apiVersion each manager wrote its fields in,
 * as structured-merge-diff's Updater converts them before comparing: a manager's
 * paths mean something only in its own version (`spec.replicas` in v1 is
 * `spec.parallelism` in v1alpha1).
 */
import type { JsonSchema } from '../json-schema.js';
import type { KubeObject } from '../meta/object.js';
import { compareObjects, withoutFields } from './compare.js';
import { FieldSet } from './field-set.js';
import type { OwnershipContext } from './managed-fields.js';
import type { ChangesIn } from './ownership.js';

/** An object in one apiVersion, with that version's schema. */
export interface VersionedObject {
  readonly object: KubeObject;
  readonly schema: JsonSchema;
}

/** Converts the objects of one write into other apiVersions, each object once per version. */
export class ObjectVersions {
  readonly #context: OwnershipContext;
  readonly #views = new WeakMap<KubeObject, Map<string, VersionedObject | undefined>>();

  constructor(context: OwnershipContext) {
    this.#context = context;
  }

  /** Whether paths written in `apiVersion` are read as the request's: that version's, or any version's without a converter. */
  isRequestVersion(apiVersion: string): boolean {
    return !this.#context.converter || apiVersion === this.#context.apiVersion;
  }

  /** `object`, of the request's version and without managedFields, in `apiVersion`; undefined when that version is not served. */
  view(object: KubeObject, apiVersion: string): VersionedObject | undefined {
    const { converter, schema } = this.#context;
    if (!converter || this.isRequestVersion(apiVersion)) return { object, schema };
    const views = this.#views.get(object) ?? new Map<string, VersionedObject | undefined>();
    this.#views.set(object, views);
    if (!views.has(apiVersion)) {
      const versionSchema = converter.schema(apiVersion);
      // The nothing a create starts from is nothing in every version.
      const converted = versionSchema && (Object.keys(object).length === 0 ? object : converter.convert(object, apiVersion));
      views.set(apiVersion, versionSchema && converted && { object: converted, schema: versionSchema });
    }
    return views.get(apiVersion);
  }

  /**
   * What changed from `before` to `after` in each apiVersion, compared once per
   * version with its schema; undefined for a version not served. The fields the
   * endpoint resets are top-level fields (`status`, `metadata`) of the same name in
   * every version, so they are left out of each comparison.
   */
  changes(before: KubeObject, after: KubeObject): ChangesIn {
    const { apiVersion: requestVersion, resolve, resetFields = FieldSet.empty } = this.#context;
    const compared = new Map<string, ReturnType<ChangesIn>>();
    return (apiVersion) => {
      const version = this.isRequestVersion(apiVersion) ? requestVersion : apiVersion;
      if (!compared.has(version)) {
        const lhs = this.view(before, version);
        const rhs = this.view(after, version);
        compared.set(version, lhs && rhs && withoutFields(compareObjects(lhs.object, rhs.object, lhs.schema, resolve), resetFields));
      }
      return compared.get(version);
    };
  }
}
