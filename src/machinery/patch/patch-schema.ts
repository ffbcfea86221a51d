/**
 * The patch metadata strategic merge patch follows, read from a kind's OpenAPI v3
 * schema the way kube reads it from Go struct tags (`patchStrategy`, `patchMergeKey`):
 * `x-kubernetes-patch-strategy` and `x-kubernetes-patch-merge-key` on a field.
 */
import type { JsonSchema, SchemaResolver } from '../json-schema.js';

/** How strategic merge patch treats one field, and where its value sits in the schema. */
export interface FieldPatchMeta {
  /**
   * `merge` or `replace`; undefined for kube's defaults (maps merge, lists are
   * replaced). `retainKeys` is left out: it only tells clients to send `$retainKeys`.
   */
  readonly strategy: string | undefined;
  /** The field of list items that identifies them when the list merges. */
  readonly mergeKey: string | undefined;
  /** The schema of the field's value. */
  readonly schema: PatchSchema;
}

/**
 * A position in a schema, answering the patch metadata of what lies below it. Below
 * an unknown field or one that preserves unknown fields the schema says nothing, so
 * every field there gets kube's defaults, as for unstructured objects.
 *
 * @example
 * const meta = PatchSchema.of(pipelineSchema, resolve).field('spec').schema.field('steps');
 * // meta.strategy === 'merge', meta.mergeKey === 'name'
 */
export class PatchSchema {
  readonly #schema: JsonSchema | undefined;
  readonly #resolve: SchemaResolver;

  private constructor(resolved: JsonSchema | undefined, resolve: SchemaResolver) {
    this.#schema = resolved;
    this.#resolve = resolve;
  }

  /** The root of `schema`, whose `$ref`s `resolve` follows. */
  static of(schema: JsonSchema, resolve: SchemaResolver): PatchSchema {
    return new PatchSchema(resolve(schema), resolve);
  }

  /** The metadata of the field `name` of the object this schema describes. */
  field(name: string): FieldPatchMeta {
    const declared = this.#declared(name);
    // kube's OpenAPI puts the extensions beside the `allOf: [{$ref}]` wrapper, so read
    // the field's own schema before the one it refers to.
    const resolved = declared && this.#resolve(declared);
    const strategies = declared?.['x-kubernetes-patch-strategy'] ?? resolved?.['x-kubernetes-patch-strategy'];
    return {
      strategy: strategies?.split(',').find((strategy) => strategy !== 'retainKeys'),
      mergeKey: declared?.['x-kubernetes-patch-merge-key'] ?? resolved?.['x-kubernetes-patch-merge-key'],
      schema: new PatchSchema(resolved, this.#resolve),
    };
  }

  /** The schema of the items of the list this schema describes. */
  items(): PatchSchema {
    const items = this.#schema?.items;
    return new PatchSchema(items && this.#resolve(items), this.#resolve);
  }

  /** The schema of the field `name`: its property, or what `additionalProperties` gives every field. */
  #declared(name: string): JsonSchema | undefined {
    const properties = this.#schema?.properties;
    if (properties && Object.hasOwn(properties, name)) return properties[name];
    const additional = this.#schema?.additionalProperties;
    return typeof additional === 'object' ? additional : undefined;
  }
}
