/**
 * Validates objects against their version's OpenAPI schema with ajv, reporting
 * field errors with kube's field paths and reasons.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { default as addFormatsModule } from 'ajv-formats';
import type { FieldError } from '../machinery/errors.js';
import {
  childPath,
  componentRefPrefix,
  componentResolver,
  kubernetesSchemaKeywords,
  unknownFields,
  type JsonSchema,
  type SchemaResolver,
} from '../machinery/json-schema.js';

// ajv-formats is CommonJS with `exports.default`: under ESM the plugin sits one level down.
type FormatsPlugin = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as FormatsPlugin;

/** Turns ajv's `/spec/steps/0/name` into kube's `spec.steps[0].name`. */
function fieldPath(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<string>((path, part) => childPath(path, /^\d+$/.test(part) ? Number(part) : part), '');
}

function describeValue(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

function toFieldError(error: ErrorObject, root: unknown): FieldError {
  const path = fieldPath(error.instancePath);
  const value = error.instancePath
    .split('/')
    .slice(1)
    .reduce<unknown>((v, part) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), root);
  switch (error.keyword) {
    case 'required':
      return { field: childPath(path, String(error.params.missingProperty)), reason: 'FieldValueRequired', message: 'Required value' };
    case 'type':
      return {
        field: path,
        reason: 'FieldValueTypeInvalid',
        message: `Invalid value: ${describeValue(value)}: ${path} in body must be of type ${error.params.type}: ${describeValue(typeof value)}`,
      };
    case 'enum':
      return {
        field: path,
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${describeValue(value)}: supported values: ${(error.params.allowedValues as unknown[]).map((v) => describeValue(v)).join(', ')}`,
      };
    default:
      return { field: path, reason: 'FieldValueInvalid', message: `Invalid value: ${describeValue(value)}: ${path} in body ${error.message ?? 'is invalid'}` };
  }
}

/** Rewrites `#/components/schemas/X` references into ajv schema ids. */
function toAjvRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toAjvRefs);
  if (schema && typeof schema === 'object') {
    return Object.fromEntries(
      Object.entries(schema).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? v.slice(componentRefPrefix.length) : toAjvRefs(v)]),
    );
  }
  return schema;
}

/** The result of validating one object. */
export interface SchemaValidation {
  readonly errors: readonly FieldError[];
  /** Paths of fields the schema does not declare; they have been removed from the object. */
  readonly unknownFields: readonly string[];
}

/** Validates objects against a set of named component schemas. */
export class SchemaValidator {
  readonly #ajv: Ajv;
  readonly #resolve: SchemaResolver;
  readonly #components: Readonly<Record<string, JsonSchema>>;
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(components: Readonly<Record<string, JsonSchema>>) {
    this.#components = components;
    this.#resolve = componentResolver(components);
    this.#ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    addFormats(this.#ajv);
    this.#ajv.addVocabulary([...kubernetesSchemaKeywords]);
    for (const [name, schema] of Object.entries(components)) this.#ajv.addSchema(toAjvRefs(schema) as object, name);
  }

  /** Resolves `$ref`s against the components; patches and apply walk schemas with it. */
  get resolve(): SchemaResolver {
    return this.#resolve;
  }

  /** The component schema `name`. */
  schema(name: string): JsonSchema {
    const schema = this.#components[name];
    if (!schema) throw new Error(`no schema named ${name}`);
    return schema;
  }

  /** Validates `object` (pruning unknown fields from it) against component `schemaName`. */
  validate(schemaName: string, object: unknown): SchemaValidation {
    let validate = this.#compiled.get(schemaName);
    if (!validate) {
      validate = this.#ajv.getSchema(schemaName);
      if (!validate) throw new Error(`no schema named ${schemaName}`);
      this.#compiled.set(schemaName, validate);
    }
    const schema = this.#components[schemaName]!;
    const unknown = unknownFields(object, schema, this.#resolve, true);
    const errors = validate(object) ? [] : (validate.errors ?? []).map((e) => toFieldError(e, object));
    return { errors, unknownFields: unknown };
  }
}
