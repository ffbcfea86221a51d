/**
 * Validates objects against their version's OpenAPI schema with ajv, reporting
 * field errors with kube's field paths and reasons; also the schema resolver patches,
 * pruning and field ownership walk schemas with.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { default as addFormatsModule } from 'ajv-formats';
import type { FieldError } from '../machinery/errors.js';
import { FieldPath, invalid, notSupported, required, tooLong, typeInvalid } from '../machinery/field-errors.js';
import { componentRefPrefix, componentResolver, kubernetesSchemaKeywords, type JsonSchema, type SchemaResolver } from '../machinery/json-schema.js';

// ajv-formats is CommonJS with `exports.default`: under ESM the plugin sits one level down.
type FormatsPlugin = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as FormatsPlugin;

/** Turns ajv's `/spec/steps/0/name` into kube's `spec.steps[0].name`. */
function pathOf(instancePath: string): FieldPath {
  return instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<FieldPath>((path, part) => (/^\d+$/.test(part) ? path.index(Number(part)) : path.child(part)), FieldPath.root);
}

function toFieldError(error: ErrorObject, root: unknown): FieldError {
  const path = pathOf(error.instancePath);
  const value = error.instancePath
    .split('/')
    .slice(1)
    .reduce<unknown>(
      (v, part) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined),
      root,
    );
  switch (error.keyword) {
    case 'required':
      return required(path.child(String(error.params.missingProperty)));
    case 'type':
      return typeInvalid(path, value, `${path.toString()} in body must be of type ${error.params.type}: ${JSON.stringify(typeof value)}`);
    case 'enum':
      return notSupported(path, value, (error.params.allowedValues as unknown[]).map(String));
    // As kube's schema validation (and its TooLong), the value is not shown.
    case 'maxLength':
      return tooLong(path, Number(error.params.limit));
    default:
      return invalid(path, value, `${path.toString()} in body ${error.message ?? 'is invalid'}`);
  }
}

/**
 * Whether `error` is a field ObjectMeta's schema requires (an ownerReference's uid): those are
 * ObjectMeta validation's to report, once and in its words (`must not be empty`), as kube's
 * ValidateOwnerReference does; the schema says them for OpenAPI's readers.
 */
function metadataRequired(error: ErrorObject): boolean {
  return error.keyword === 'required' && error.instancePath.startsWith('/metadata/');
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

  /**
   * Validates `object` against component `schemaName`; the field errors, none when
   * valid. It never changes the object: unknown fields were pruned when it was decoded.
   */
  validate(schemaName: string, object: unknown): FieldError[] {
    let validate = this.#compiled.get(schemaName);
    if (!validate) {
      validate = this.#ajv.getSchema(schemaName);
      if (!validate) throw new Error(`no schema named ${schemaName}`);
      this.#compiled.set(schemaName, validate);
    }
    if (validate(object)) return [];
    return (validate.errors ?? []).filter((e) => !metadataRequired(e)).map((e) => toFieldError(e, object));
  }
}
