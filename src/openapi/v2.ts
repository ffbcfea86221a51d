/**
 * The OpenAPI v2 (Swagger 2.0) document, derived from the OpenAPI v3 group-version
 * documents so both describe the same schemas and operations. kube-aggregator reads
 * it as JSON (keeping the paths under `/apis/<group>/<version>/`); kubectl 1.27 and
 * 1.28 read it as protobuf for `explain` and to learn that the server validates
 * fields (the `fieldValidation` query parameter of the PATCH operation).
 */
import { componentRefPrefix, type JsonSchema } from '../machinery/json-schema.js';
import {
  operationMethods,
  type ContentObject,
  type OpenApiV3Document,
  type OperationObject,
  type ParameterObject,
  type PathItemObject,
} from './v3.js';

/** A Swagger 2.0 parameter: a body parameter, or a query/path parameter with its type inline. */
export interface SwaggerParameter {
  readonly name: string;
  readonly in: 'body' | 'query' | 'path';
  readonly description?: string;
  readonly required?: boolean;
  readonly type?: 'string' | 'integer' | 'boolean';
  readonly uniqueItems?: boolean;
  readonly schema?: JsonSchema;
}

/** A Swagger 2.0 operation, with kube's `x-kubernetes-action` and object-form GVK. */
export interface SwaggerOperation {
  readonly description: string;
  readonly consumes: readonly string[];
  readonly produces: readonly string[];
  readonly schemes: readonly string[];
  readonly tags: readonly string[];
  readonly operationId: string;
  readonly parameters?: readonly SwaggerParameter[];
  readonly responses: Readonly<Record<string, { readonly description: string; readonly schema?: JsonSchema }>>;
  readonly 'x-kubernetes-action': string;
  readonly 'x-kubernetes-group-version-kind': OperationObject['x-kubernetes-group-version-kind'];
}

/** A Swagger 2.0 path item. */
export type SwaggerPathItem = { readonly parameters?: readonly SwaggerParameter[] } & {
  readonly [method in (typeof operationMethods)[number]]?: SwaggerOperation;
};

/** A Swagger 2.0 document, as kube-apiserver serves at `/openapi/v2`. */
export interface SwaggerDocument {
  readonly swagger: '2.0';
  readonly info: { readonly title: string; readonly version: string };
  readonly paths: Readonly<Record<string, SwaggerPathItem>>;
  readonly definitions: Readonly<Record<string, JsonSchema>>;
}

const definitionRefPrefix = '#/definitions/';

function definitionRef(ref: string): string {
  if (!ref.startsWith(componentRefPrefix)) throw new Error(`schema reference ${ref} is not a component reference`);
  return definitionRefPrefix + ref.slice(componentRefPrefix.length);
}

/**
 * A v3 schema as a v2 definition: references point into `definitions`, and the
 * `allOf: [{$ref}]` wrapper v3 needs to give a reference a description becomes a
 * plain `$ref` beside it, as in kube's v2 documents (kubectl's v2 parser reads an
 * `allOf` as an untyped value and would not descend into it).
 */
function toDefinition(schema: JsonSchema): JsonSchema {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema) as [keyof JsonSchema, unknown][]) {
    if (key === '$ref') {
      out.$ref = definitionRef(value as string);
    } else if (key === 'allOf') {
      const allOf = value as readonly JsonSchema[];
      const only = allOf.length === 1 ? allOf[0] : undefined;
      if (only?.$ref !== undefined && Object.keys(only).length === 1) out.$ref = definitionRef(only.$ref);
      else out.allOf = allOf.map(toDefinition);
    } else if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([name, s]) => [name, toDefinition(s)]));
    } else if (key === 'items' || (key === 'additionalProperties' && typeof value === 'object')) {
      out[key] = toDefinition(value as JsonSchema);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function parameter({ schema, ...rest }: ParameterObject): SwaggerParameter {
  return { ...rest, ...schema };
}

// v2 has one schema per body or response; every media type of a v3 content carries the same one.
function contentSchema(content: ContentObject | undefined): JsonSchema | undefined {
  const first = content && Object.values(content)[0];
  return first && toDefinition(first.schema);
}

function operation(op: OperationObject): SwaggerOperation {
  const body: SwaggerParameter[] = op.requestBody
    ? [{ name: 'body', in: 'body', ...(op.requestBody.required ? { required: true } : {}), schema: contentSchema(op.requestBody.content)! }]
    : [];
  const responses = Object.values(op.responses);
  const parameters = [...body, ...(op.parameters ?? []).map(parameter)];
  return {
    description: op.description,
    // kube declares `*/*` for operations without a body.
    consumes: op.requestBody ? Object.keys(op.requestBody.content) : ['*/*'],
    produces: [...new Set(responses.flatMap((r) => Object.keys(r.content ?? {})))],
    schemes: ['https'],
    tags: op.tags,
    operationId: op.operationId,
    // Inline, never `#/parameters/…`: kubectl's fieldValidation check reads only inline query parameters.
    ...(parameters.length > 0 ? { parameters } : {}),
    responses: Object.fromEntries(
      Object.entries(op.responses).map(([code, r]) => {
        const schema = contentSchema(r.content);
        return [code, { description: r.description, ...(schema ? { schema } : {}) }];
      }),
    ),
    'x-kubernetes-action': op['x-kubernetes-action'],
    'x-kubernetes-group-version-kind': op['x-kubernetes-group-version-kind'],
  };
}

function pathItem(item: PathItemObject): SwaggerPathItem {
  const out: Record<string, unknown> = {};
  for (const method of operationMethods) {
    const op = item[method];
    if (op) out[method] = operation(op);
  }
  if (item.parameters) out.parameters = item.parameters.map(parameter);
  return out;
}

/** The Swagger 2.0 document of every group-version, from their v3 documents. */
export function swaggerDocument(documents: readonly OpenApiV3Document[], info: SwaggerDocument['info']): SwaggerDocument {
  const paths: Record<string, SwaggerPathItem> = {};
  const definitions: Record<string, JsonSchema> = {};
  for (const document of documents) {
    for (const [path, item] of Object.entries(document.paths)) paths[path] = pathItem(item);
    // The meta types appear in every group-version's document, identically.
    for (const [name, schema] of Object.entries(document.components.schemas)) definitions[name] = toDefinition(schema);
  }
  return { swagger: '2.0', info, paths, definitions };
}
