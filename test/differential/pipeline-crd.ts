/**
 * A CustomResourceDefinition equivalent to Cairn's Pipelines, for the differential test
 * to run the same requests against kube-apiserver's own custom resource handlers.
 *
 * The schemas are the committed OpenAPI v3 documents (`openapi/v3/`), made structural:
 * `$ref`s inlined, metadata reduced to `type: object` (a CRD may say nothing more of it),
 * and the extensions a CRD's JSONSchemaProps has no field for dropped. What those documents
 * do not carry comes from the resource as Cairn serves it: names, printer columns,
 * selectable fields, the scale subresource's paths, and the defaults, which Cairn applies
 * in code (each version's `defaults`) and a CRD must declare in its schema.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion, JSONSchemaProps } from 'kubernetes-types/apiextensions/v1.js';
import type { ApiResource, ResourceVersion } from '../../src/apis/api-resource.js';
import { componentRefPrefix, componentResolver, type JsonSchema } from '../../src/machinery/json-schema.js';
import { isPlainObject, type KubeObject } from '../../src/machinery/meta/object.js';

/** An OpenAPI v3 document as `npm run openapi` commits it: only its component schemas matter here. */
export interface OpenApiDocument {
  readonly components: { readonly schemas: Readonly<Record<string, JsonSchema>> };
}

/** The committed OpenAPI v3 document of `group/version`. */
export function committedOpenApi(group: string, version: string): OpenApiDocument {
  const file = join(import.meta.dirname, '..', '..', 'openapi', 'v3', `apis__${group}__${version}_openapi.json`);
  return JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
}

/** The `x-kubernetes-*` extensions a CRD schema has a field for; the others (patch strategy, GVK) exist only in built-in OpenAPI. */
const crdExtensions = new Set([
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
]);

/**
 * `schema` as a CRD's structural schema: references inlined, unknown extensions dropped,
 * and `metadata` (at the top level only) an untyped object, since a CRD may not restrict
 * ObjectMeta beyond name and generateName.
 */
export function structuralSchema(schema: JsonSchema, components: Readonly<Record<string, JsonSchema>>, topLevel = true): JSONSchemaProps {
  const resolved = componentResolver(components)(schema);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(resolved)) {
    if (key === '$ref' || key === 'allOf') continue;
    if (key.startsWith('x-kubernetes-') && !crdExtensions.has(key)) continue;
    if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([name, property]) => [
          name,
          topLevel && name === 'metadata' ? { type: 'object' } : structuralSchema(property, components, false),
        ]),
      );
    } else if (key === 'items') out.items = structuralSchema(value as JsonSchema, components, false);
    else out[key] = value;
  }
  // A `$ref` wrapped in `allOf` carries the description beside it: kept, as it describes the field.
  if (schema.description !== undefined) out.description = schema.description;
  return out;
}

/**
 * Adds as `default`s what `defaults` sets on an empty object: a field it creates holding an
 * object becomes `default: {}` and its own defaults are added below it, as kube's structural
 * defaulting fills a defaulted object in turn.
 */
export function withDefaults(schema: JSONSchemaProps, defaults: ((object: KubeObject) => void) | undefined): JSONSchemaProps {
  if (defaults === undefined) return schema;
  const defaulted: KubeObject = {};
  defaults(defaulted);
  const add = (node: JSONSchemaProps, values: Record<string, unknown>): JSONSchemaProps => ({
    ...node,
    properties: Object.fromEntries(
      Object.entries(node.properties ?? {}).map(([name, property]) => {
        if (!(name in values)) return [name, property];
        const value = values[name];
        if (!isPlainObject(value)) return [name, { ...property, default: value }];
        return [name, add({ ...property, default: {} }, value)];
      }),
    ),
  });
  return add(schema, defaulted);
}

/** Where a field of the storage version is in `version` (renamed in v1alpha1, the same elsewhere). */
const fieldIn = (version: ResourceVersion, storagePath: string): string => version.fieldPath?.(storagePath) ?? storagePath;

/** One served version of the CRD. */
function crdVersion(resource: ApiResource, version: ResourceVersion, document: OpenApiDocument): CustomResourceDefinitionVersion {
  const components = document.components.schemas;
  const schema = components[version.schemaName];
  if (schema === undefined) throw new Error(`the OpenAPI document of ${version.version} has no ${version.schemaName}`);
  const { scale, status } = resource.subresources;
  const columns = version.printerColumns ?? resource.printerColumns;
  return {
    name: version.version,
    served: true,
    storage: version.version === resource.storageVersion,
    schema: { openAPIV3Schema: withDefaults(structuralSchema(schema, components), version.defaults) },
    subresources: {
      ...(status ? { status: {} } : {}),
      ...(scale && {
        scale: {
          specReplicasPath: `.${fieldIn(version, scale.specReplicas)}`,
          statusReplicasPath: `.${fieldIn(version, scale.statusReplicas)}`,
          ...(scale.labelSelector === undefined ? {} : { labelSelectorPath: `.${fieldIn(version, scale.labelSelector)}` }),
        },
      }),
    },
    // kube puts NAME first in every custom resource's Table by itself: a column of it would be a second one.
    additionalPrinterColumns: columns
      .filter((column) => column.jsonPath !== '.metadata.name')
      .map(({ name, type, format, description, priority, jsonPath }) => ({
        name,
        type,
        ...(format === undefined ? {} : { format }),
        ...(description === undefined ? {} : { description }),
        priority,
        jsonPath,
      })),
    selectableFields: resource.selectableFields.map((field) => ({ jsonPath: `.${fieldIn(version, field)}` })),
  };
}

/**
 * The CRD of `resource` in `group`, each served version's schema from `documents` (by
 * version), the storage version stored, conversion `None`: kube only relabels the
 * apiVersion, so objects read in a version whose fields differ from the storage
 * version's (v1alpha1) hold the storage version's fields. Compare in versions with the
 * same fields.
 */
export function customResourceDefinition(resource: ApiResource, group: string, documents: Readonly<Record<string, OpenApiDocument>>): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${resource.plural}.${group}` },
    spec: {
      group,
      names: {
        plural: resource.plural,
        singular: resource.singular,
        kind: resource.kind,
        listKind: resource.listKind,
        shortNames: [...resource.shortNames],
        categories: [...resource.categories],
      },
      scope: resource.namespaced ? 'Namespaced' : 'Cluster',
      versions: resource.versions.map((version) => {
        const document = documents[version.version];
        if (document === undefined) throw new Error(`no OpenAPI document for ${version.version}`);
        return crdVersion(resource, version, document);
      }),
      conversion: { strategy: 'None' },
    },
  };
}

/** The component names a schema refers to (for the unit test: none is left after inlining). */
export function references(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(references);
  if (!isPlainObject(value)) return [];
  return Object.entries(value).flatMap(([key, child]) =>
    key === '$ref' && typeof child === 'string' ? [child.slice(componentRefPrefix.length)] : references(child),
  );
}
