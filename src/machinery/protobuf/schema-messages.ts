/**
 * Protocol Buffers messages made from a kind's OpenAPI schema, as go-to-protobuf
 * makes them from Go types: the kind's message holds `metadata`, `spec`, `status` (its
 * type is the envelope's), nested objects become messages named after their path
 * (`PipelineSpec`, `PipelineSpecStep`), a list kind holds ListMeta and its items.
 *
 * Field numbers never change as a schema grows: they come from a committed map, a new
 * field takes the next number of its message, and a field that went away keeps its
 * number (rendered `reserved`), so an old client still reads every field it knew.
 */
import { componentRefPrefix, type JsonSchema } from '../json-schema.js';
import { metaV1ProtoPath, runtimeProtoPath } from './kube-messages.js';

const runtimePackage = 'k8s.io.apimachinery.pkg.runtime';
import { metaV1Package, type MessageDefinition, type MessageField } from './messages.js';

/** Field numbers by full message name, then by field name. */
export type FieldNumbers = Readonly<Record<string, Readonly<Record<string, number>>>>;

const scalars: Readonly<Record<string, string>> = { boolean: 'bool', number: 'double' };
const time = `${metaV1Package}.Time`;

const pascal = (name: string): string => name[0].toUpperCase() + name.slice(1);
const singular = (name: string): string => (name.endsWith('s') && name.length > 1 ? name.slice(0, -1) : name);

/** The message of a `$ref` to a Kubernetes component (`io.k8s.apimachinery…ObjectMeta` is `k8s.io.apimachinery…ObjectMeta`). */
function referencedMessage(schema: JsonSchema): string | undefined {
  const ref = schema.$ref ?? (schema.allOf?.length === 1 ? schema.allOf[0].$ref : undefined);
  if (ref === undefined) return undefined;
  const name = ref.startsWith(componentRefPrefix) ? ref.slice(componentRefPrefix.length) : ref;
  if (!name.startsWith('io.k8s.')) throw new Error(`protobuf: no message for $ref ${ref}`);
  return `k8s.io.${name.slice('io.k8s.'.length)}`;
}

/** Builds the messages of schemas, numbering fields from `numbers`. */
class MessageBuilder {
  readonly messages: MessageDefinition[] = [];
  readonly numbers: Record<string, Record<string, number>> = {};
  readonly #committed: FieldNumbers;

  constructor(committed: FieldNumbers) {
    this.#committed = committed;
  }

  /** Adds the message `name` of an object schema (skipping `skip`); returns its name. */
  object(name: string, schema: JsonSchema, skip: readonly string[] = []): string {
    if (this.messages.some((m) => m.name === name)) throw new Error(`protobuf: two schemas make the message ${name}`);
    const properties = Object.entries(schema.properties ?? {}).filter(([field]) => !skip.includes(field));
    const numbers = this.#number(
      name,
      properties.map(([field]) => field),
    );
    const definition: MessageDefinition = {
      name,
      fields: properties.map(([field, property]) => {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(field)) throw new Error(`protobuf: ${name}.${field} is no protobuf field name`);
        return { name: field, number: numbers[field], ...this.#fieldType(`${name}${pascal(field)}`, property, `${name}.${field}`) };
      }),
      reserved: Object.entries(numbers)
        .filter(([field]) => !properties.some(([f]) => f === field))
        .map(([field, number]) => ({ name: field, number })),
    };
    this.messages.push(definition);
    return name;
  }

  /** A field's type and label; `nested` names a message its schema makes. */
  #fieldType(nested: string, schema: JsonSchema, path: string): Pick<MessageField, 'type' | 'label'> {
    const referenced = referencedMessage(schema);
    if (referenced) return { type: referenced, label: 'optional' };
    if (schema['x-kubernetes-preserve-unknown-fields'] || schema['x-kubernetes-int-or-string']) throw new Error(`protobuf: ${path} has no message type yet`);
    switch (schema.type) {
      case 'string':
        return { type: schema.format === 'date-time' ? time : 'string', label: 'optional' };
      case 'integer':
        return { type: schema.format === 'int32' ? 'int32' : 'int64', label: 'optional' };
      case 'boolean':
      case 'number':
        return { type: scalars[schema.type], label: 'optional' };
      case 'array': {
        if (!schema.items || schema.items.type === 'array') throw new Error(`protobuf: ${path} is not a list of one type`);
        const item = this.#fieldType(singular(nested), schema.items, `${path}[]`);
        if (item.label !== 'optional') throw new Error(`protobuf: ${path} is not a list of one type`);
        return { type: item.type, label: 'repeated' };
      }
      case 'object':
        if (schema.properties) return { type: this.object(nested, schema), label: 'optional' };
        if (typeof schema.additionalProperties === 'object' && schema.additionalProperties.type === 'string') return { type: 'string', label: 'map' };
        throw new Error(`protobuf: ${path} is an object of no known shape`);
      default:
        throw new Error(`protobuf: ${path} has no type`);
    }
  }

  /** The numbers of a message's fields: committed ones kept, new ones after the highest ever given. */
  #number(message: string, fields: readonly string[]): Record<string, number> {
    const numbers: Record<string, number> = { ...this.#committed[message] };
    let next = Math.max(0, ...Object.values(numbers)) + 1;
    for (const field of fields) numbers[field] ??= next++;
    this.numbers[message] = numbers;
    return numbers;
  }
}

/** A served kind in one version: its message name and object schema. */
export interface KindSchema {
  /** The full message name of the kind: `dev.cairn.v1.Pipeline`. */
  readonly message: string;
  readonly schema: JsonSchema;
}

/**
 * The messages of kinds (and of their lists, `<message>List`), with the field numbers
 * they use: the committed ones and any a new field was given.
 */
export function kindMessages(kinds: readonly KindSchema[], committed: FieldNumbers): { messages: MessageDefinition[]; numbers: FieldNumbers } {
  const builder = new MessageBuilder(committed);
  for (const { message, schema } of kinds) {
    builder.object(message, schema, ['apiVersion', 'kind']);
    builder.messages.push({
      name: `${message}List`,
      fields: [
        { name: 'metadata', number: 1, type: `${metaV1Package}.ListMeta`, label: 'optional' },
        { name: 'items', number: 2, type: message, label: 'repeated' },
      ],
      reserved: [],
    });
  }
  return { messages: builder.messages, numbers: builder.numbers };
}

const generatedNotice = '// Generated from the OpenAPI schemas by `npm run proto`; do not edit. Field numbers never change: see proto/README.md.';

/** The `.proto` text of one package's messages, in go-to-protobuf's layout (proto2, sorted messages). */
export function renderProto(pkg: string, messages: readonly MessageDefinition[]): string {
  const local = (type: string) => (type.startsWith(`${pkg}.`) ? type.slice(pkg.length + 1) : type);
  // runtime's messages (RawExtension: an embedded object) are imported only where a message uses one.
  const usesRuntime = messages.some((m) => m.fields.some((f) => f.type.startsWith(`${runtimePackage}.`)));
  const imports = [`import "${metaV1ProtoPath}";`, ...(usesRuntime ? [`import "${runtimeProtoPath}";`] : [])];
  const lines = [generatedNotice, '', 'syntax = "proto2";', '', `package ${pkg};`, '', ...imports, ''];
  for (const message of [...messages].sort((a, b) => a.name.localeCompare(b.name))) {
    lines.push(`message ${local(message.name)} {`);
    for (const { name, number } of message.reserved) lines.push(`  reserved ${number};`, `  reserved "${name}";`);
    for (const field of [...message.fields].sort((a, b) => a.number - b.number)) {
      const type = local(field.type);
      lines.push(
        field.label === 'map' ? `  map<string, ${type}> ${field.name} = ${field.number};` : `  ${field.label} ${type} ${field.name} = ${field.number};`,
      );
    }
    lines.push('}', '');
  }
  return lines.join('\n');
}
