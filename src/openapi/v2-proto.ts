/**
 * The protobuf form of the OpenAPI v2 document, as kubectl 1.27 and 1.28 request it
 * (`Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`): gnostic's
 * `openapi.v2.Document` (github.com/google/gnostic-models, openapiv2/OpenAPIv2.proto).
 * Only the messages and fields Cairn's documents use are declared, with gnostic's
 * field numbers; kube-openapi reads vendor extensions by YAML-decoding `Any.yaml`.
 */
import protobuf from 'protobufjs';
import type { JsonSchema } from '../machinery/json-schema.js';
import type { SwaggerDocument, SwaggerOperation, SwaggerParameter, SwaggerPathItem } from './v2.js';

type FieldSpec = readonly [type: string, id: number, rule?: 'repeated'];

/** A protobufjs message descriptor; `oneof` names gnostic's oneof (whose members keep presence, so `false` is encoded). */
function message(fields: Readonly<Record<string, FieldSpec>>, oneof?: readonly string[]): protobuf.IType {
  return {
    fields: Object.fromEntries(Object.entries(fields).map(([name, [type, id, rule]]) => [name, { type, id, ...(rule ? { rule } : {}) }])),
    ...(oneof ? { oneofs: { oneof: { oneof: [...oneof] } } } : {}),
  };
}

const messages: Readonly<Record<string, protobuf.IType>> = {
  Document: message({ swagger: ['string', 1], info: ['Info', 2], paths: ['Paths', 8], definitions: ['Definitions', 9] }),
  Info: message({ title: ['string', 1], version: ['string', 2] }),
  Paths: message({ path: ['NamedPathItem', 2, 'repeated'] }),
  NamedPathItem: message({ name: ['string', 1], value: ['PathItem', 2] }),
  PathItem: message({
    get: ['Operation', 2],
    put: ['Operation', 3],
    post: ['Operation', 4],
    delete: ['Operation', 5],
    patch: ['Operation', 8],
    parameters: ['ParametersItem', 9, 'repeated'],
  }),
  Operation: message({
    tags: ['string', 1, 'repeated'],
    description: ['string', 3],
    operationId: ['string', 5],
    produces: ['string', 6, 'repeated'],
    consumes: ['string', 7, 'repeated'],
    parameters: ['ParametersItem', 8, 'repeated'],
    responses: ['Responses', 9],
    schemes: ['string', 10, 'repeated'],
    vendorExtension: ['NamedAny', 13, 'repeated'],
  }),
  ParametersItem: message({ parameter: ['Parameter', 1] }, ['parameter']),
  Parameter: message({ bodyParameter: ['BodyParameter', 1], nonBodyParameter: ['NonBodyParameter', 2] }, ['bodyParameter', 'nonBodyParameter']),
  BodyParameter: message({ description: ['string', 1], name: ['string', 2], in: ['string', 3], required: ['bool', 4], schema: ['Schema', 5] }),
  NonBodyParameter: message(
    { queryParameterSubSchema: ['QueryParameterSubSchema', 3], pathParameterSubSchema: ['PathParameterSubSchema', 4] },
    ['queryParameterSubSchema', 'pathParameterSubSchema'],
  ),
  QueryParameterSubSchema: message({
    required: ['bool', 1],
    in: ['string', 2],
    description: ['string', 3],
    name: ['string', 4],
    type: ['string', 6],
    uniqueItems: ['bool', 20],
  }),
  PathParameterSubSchema: message({
    required: ['bool', 1],
    in: ['string', 2],
    description: ['string', 3],
    name: ['string', 4],
    type: ['string', 5],
    uniqueItems: ['bool', 19],
  }),
  Responses: message({ responseCode: ['NamedResponseValue', 1, 'repeated'] }),
  NamedResponseValue: message({ name: ['string', 1], value: ['ResponseValue', 2] }),
  ResponseValue: message({ response: ['Response', 1] }, ['response']),
  Response: message({ description: ['string', 1], schema: ['SchemaItem', 2] }),
  SchemaItem: message({ schema: ['Schema', 1] }, ['schema']),
  Definitions: message({ additionalProperties: ['NamedSchema', 1, 'repeated'] }),
  Properties: message({ additionalProperties: ['NamedSchema', 1, 'repeated'] }),
  NamedSchema: message({ name: ['string', 1], value: ['Schema', 2] }),
  Schema: message({
    _ref: ['string', 1],
    format: ['string', 2],
    description: ['string', 4],
    default: ['Any', 5],
    maximum: ['double', 7],
    minimum: ['double', 9],
    maxLength: ['int64', 11],
    minLength: ['int64', 12],
    pattern: ['string', 13],
    maxItems: ['int64', 14],
    minItems: ['int64', 15],
    required: ['string', 19, 'repeated'],
    enum: ['Any', 20, 'repeated'],
    additionalProperties: ['AdditionalPropertiesItem', 21],
    type: ['TypeItem', 22],
    items: ['ItemsItem', 23],
    allOf: ['Schema', 24, 'repeated'],
    properties: ['Properties', 25],
    vendorExtension: ['NamedAny', 31, 'repeated'],
  }),
  AdditionalPropertiesItem: message({ schema: ['Schema', 1], boolean: ['bool', 2] }, ['schema', 'boolean']),
  TypeItem: message({ value: ['string', 1, 'repeated'] }),
  ItemsItem: message({ schema: ['Schema', 1, 'repeated'] }),
  NamedAny: message({ name: ['string', 1], value: ['Any', 2] }),
  Any: message({ yaml: ['string', 2] }),
};

const documentType = protobuf.Root.fromJSON({ nested: { openapi: { nested: { v2: { nested: messages } } } } }).lookupType('openapi.v2.Document');

type Message = Record<string, unknown>;

// JSON is YAML, and quoting every string keeps YAML 1.1 readers from taking `yes` or `on` for booleans.
const any = (value: unknown): Message => ({ yaml: JSON.stringify(value) });
const namedAny = (name: string, value: unknown): Message => ({ name, value: any(value) });
const named = <T>(entries: Readonly<Record<string, T>>, convert: (value: T) => Message): Message[] =>
  Object.entries(entries).map(([name, value]) => ({ name, value: convert(value) }));

// A field Cairn's documents would use but the declared subset lacks must fail loudly, not vanish from the protobuf.
function unsupported(what: string, key: string): never {
  throw new Error(`OpenAPI v2 protobuf: unsupported ${what} field ${key}`);
}

function schemaMessage(schema: JsonSchema): Message {
  const out: Message = {};
  const vendorExtension: Message[] = [];
  for (const [key, value] of Object.entries(schema)) {
    switch (key) {
      case '$ref':
        out._ref = value;
        break;
      case 'format':
      case 'description':
      case 'maximum':
      case 'minimum':
      case 'maxLength':
      case 'minLength':
      case 'pattern':
      case 'maxItems':
      case 'minItems':
      case 'required':
        out[key] = value;
        break;
      case 'default':
        out.default = any(value);
        break;
      case 'enum':
        out.enum = (value as unknown[]).map(any);
        break;
      case 'additionalProperties':
        out.additionalProperties = typeof value === 'boolean' ? { boolean: value } : { schema: schemaMessage(value as JsonSchema) };
        break;
      case 'type':
        out.type = { value: [value] };
        break;
      case 'items':
        out.items = { schema: [schemaMessage(value as JsonSchema)] };
        break;
      case 'allOf':
        out.allOf = (value as JsonSchema[]).map(schemaMessage);
        break;
      case 'properties':
        out.properties = { additionalProperties: named(value as Record<string, JsonSchema>, schemaMessage) };
        break;
      default:
        if (!key.startsWith('x-')) unsupported('schema', key);
        vendorExtension.push(namedAny(key, value));
    }
  }
  if (vendorExtension.length > 0) out.vendorExtension = vendorExtension;
  return out;
}

function parameterMessage({ schema, ...parameter }: SwaggerParameter): Message {
  if (parameter.in === 'body') return { parameter: { bodyParameter: { ...parameter, schema: schema && schemaMessage(schema) } } };
  const subSchema = parameter.in === 'query' ? 'queryParameterSubSchema' : 'pathParameterSubSchema';
  return { parameter: { nonBodyParameter: { [subSchema]: parameter } } };
}

function operationMessage(operation: SwaggerOperation): Message {
  const out: Message = {};
  const vendorExtension: Message[] = [];
  for (const [key, value] of Object.entries(operation)) {
    switch (key) {
      case 'tags':
      case 'description':
      case 'operationId':
      case 'produces':
      case 'consumes':
      case 'schemes':
        out[key] = value;
        break;
      case 'parameters':
        out.parameters = (value as SwaggerParameter[]).map(parameterMessage);
        break;
      case 'responses':
        out.responses = {
          responseCode: named(operation.responses, ({ description, schema }) => ({
            response: { description, ...(schema ? { schema: { schema: schemaMessage(schema) } } : {}) },
          })),
        };
        break;
      default:
        if (!key.startsWith('x-')) unsupported('operation', key);
        vendorExtension.push(namedAny(key, value));
    }
  }
  if (vendorExtension.length > 0) out.vendorExtension = vendorExtension;
  return out;
}

function pathItemMessage(item: SwaggerPathItem): Message {
  const out: Message = {};
  for (const [key, value] of Object.entries(item)) {
    if (key === 'parameters') out.parameters = (value as SwaggerParameter[]).map(parameterMessage);
    else out[key] = operationMessage(value as SwaggerOperation);
  }
  return out;
}

/** Encodes a Swagger 2.0 document as gnostic's `openapi.v2.Document`. */
export function encodeSwaggerProto(document: SwaggerDocument): Uint8Array {
  const message = documentType.fromObject({
    swagger: document.swagger,
    info: document.info,
    paths: { path: named(document.paths, pathItemMessage) },
    definitions: { additionalProperties: named(document.definitions, schemaMessage) },
  });
  return documentType.encode(message).finish();
}
