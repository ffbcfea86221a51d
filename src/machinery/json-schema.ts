/**
 * JSON Schemas as data (OpenAPI v3 structural schemas with kube's `x-kubernetes-*`
 * extensions), and the walks over them that kube-apiserver does: unknown-field
 * detection for field validation.
 */

/** A structural schema; a subset of OpenAPI v3's Schema Object. */
export interface JsonSchema {
  readonly $ref?: string;
  readonly type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  readonly format?: string;
  readonly description?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly additionalProperties?: JsonSchema | boolean;
  readonly items?: JsonSchema;
  readonly required?: readonly string[];
  readonly enum?: readonly unknown[];
  readonly default?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly allOf?: readonly JsonSchema[];
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-map-type'?: 'atomic' | 'granular';
  readonly 'x-kubernetes-patch-strategy'?: string;
  readonly 'x-kubernetes-patch-merge-key'?: string;
  readonly 'x-kubernetes-group-version-kind'?: unknown;
}

/** The `x-kubernetes-*` keywords, for validators that must know them. */
export const kubernetesSchemaKeywords = [
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-patch-strategy',
  'x-kubernetes-patch-merge-key',
  'x-kubernetes-group-version-kind',
] as const;

/** The prefix of component references in OpenAPI v3 documents. */
export const componentRefPrefix = '#/components/schemas/';

/** Resolves `$ref`s (also the `allOf: [{$ref}]` wrapper kube uses) against named components. */
export type SchemaResolver = (schema: JsonSchema) => JsonSchema;

/** A resolver over a map of component schemas. */
export function componentResolver(components: Readonly<Record<string, JsonSchema>>): SchemaResolver {
  const resolve = (schema: JsonSchema): JsonSchema => {
    const ref = schema.$ref ?? (schema.allOf?.length === 1 ? schema.allOf[0].$ref : undefined);
    if (!ref) return schema;
    const target = components[ref.slice(componentRefPrefix.length)];
    if (!target) throw new Error(`unresolved schema reference ${ref}`);
    return resolve(target);
  };
  return resolve;
}

/** Appends a property to a field path the way kube prints it (`spec.steps[0].name`). */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

/**
 * Lists the fields of `value` that `schema` does not declare, as field paths
 * (`spec.foo`, `spec.steps[0].bar`), and removes them from `value` when `prune`.
 * Recurses only as deep as the schema declares.
 */
export function unknownFields(value: unknown, schema: JsonSchema, resolve: SchemaResolver, prune: boolean, path = '', found: string[] = []): string[] {
  const s = resolve(schema);
  if (s['x-kubernetes-preserve-unknown-fields']) return found;
  if (Array.isArray(value)) {
    if (s.items) value.forEach((item, i) => unknownFields(item, s.items!, resolve, prune, childPath(path, i), found));
    return found;
  }
  if (typeof value !== 'object' || value === null) return found;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const child = s.properties?.[key] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
    if (child) {
      unknownFields(record[key], child, resolve, prune, childPath(path, key), found);
    } else if (s.additionalProperties !== true && (s.properties || s.additionalProperties === false || s.type === 'object')) {
      found.push(childPath(path, key));
      if (prune) delete record[key];
    }
  }
  return found;
}

/**
 * Removes, in place, the null values of fields the schema declares: kube decodes
 * them into its typed objects as unset (a CRD's pruning drops them too), so a
 * `"replicas": null` is defaulted rather than refused. Nulls of undeclared fields
 * stay for unknown-field detection to report. Recurses only as deep as the schema declares.
 */
export function dropNulls(value: unknown, schema: JsonSchema, resolve: SchemaResolver): void {
  const s = resolve(schema);
  if (s['x-kubernetes-preserve-unknown-fields']) return;
  if (Array.isArray(value)) {
    if (s.items) for (const item of value) dropNulls(item, s.items, resolve);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const child = s.properties?.[key] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
    if (!child) continue;
    if (record[key] === null) delete record[key];
    else dropNulls(record[key], child, resolve);
  }
}
