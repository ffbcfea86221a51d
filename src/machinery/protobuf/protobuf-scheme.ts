/**
 * `application/vnd.kubernetes.protobuf` as kube's protobuf serializer writes it: the
 * magic `k8s\0`, then a runtime.Unknown whose typeMeta names the kind and whose raw
 * holds the object's message (TypeMeta is the envelope's, never the message's). A
 * watch event is kube's raw (unenveloped) metav1.WatchEvent whose object is enveloped.
 * Objects go in and out as their JSON form; the kinds a scheme knows are its messages.
 */
import protobuf from 'protobufjs';
import { decodeJson } from '../decoding/bounded-decoding.js';
import { badRequest } from '../errors.js';
import { isPlainObject } from '../meta/object.js';
import { kubeMessages } from './kube-messages.js';
import { metaV1Package, packageOf, type MessageDefinition, type ProtobufKind } from './messages.js';

/** The four bytes every enveloped message starts with. */
export const protobufMagic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

type Json = Record<string, unknown>;

/** Messages whose JSON form is not an object of their fields (meta/v1's Time, FieldsV1, Verbs). */
interface SpecialForm {
  toMessage(json: unknown): Json;
  fromMessage(message: Json): unknown;
}

const fraction = /\.(\d{1,9})/;

type SpecialForms = Readonly<Record<string, SpecialForm>>;

const specialForms: SpecialForms = {
  // RFC 3339 in JSON; seconds and nanoseconds since the epoch in protobuf.
  [`.${metaV1Package}.Time`]: {
    toMessage(json) {
      const milliseconds = typeof json === 'string' ? Date.parse(json) : Number.NaN;
      if (Number.isNaN(milliseconds)) throw badRequest(`invalid time ${JSON.stringify(json)}`);
      const nanos = Number((fraction.exec(json as string)?.[1] ?? '').padEnd(9, '0'));
      return { seconds: Math.floor(milliseconds / 1000), ...(nanos ? { nanos } : {}) };
    },
    fromMessage({ seconds, nanos }) {
      const text = new Date(Number(seconds ?? 0) * 1000).toISOString().replace(/\.\d{3}Z$/, '');
      const fractional = nanos ? `.${String(Number(nanos)).padStart(9, '0').replace(/0+$/, '')}` : '';
      return `${text}${fractional}Z`;
    },
  },
  // A JSON document kept as its bytes, read within the decoding bounds as any JSON body.
  [`.${metaV1Package}.FieldsV1`]: {
    toMessage: (json) => ({ Raw: Buffer.from(JSON.stringify(json)) }),
    fromMessage: ({ Raw }) => decodeJson(Buffer.from((Raw as Uint8Array | undefined) ?? Buffer.from('{}')).toString('utf8')),
  },
  // A list of strings in JSON, a message holding them in protobuf.
  [`.${metaV1Package}.Verbs`]: {
    toMessage: (json) => ({ items: json }),
    fromMessage: ({ items }) => items ?? [],
  },
};

const toObjectOptions: protobuf.IConversionOptions = { longs: Number };

/** The kinds one server writes and reads in Protocol Buffers. */
export class ProtobufScheme {
  readonly #kinds = new Map<string, ProtobufKind>();
  readonly #unknown: protobuf.Type;
  readonly #watchEvent: protobuf.Type;
  readonly #root: protobuf.Root;
  readonly #forms: SpecialForms;

  /** `messages`: the messages of the group's kinds, beside Kubernetes' own. */
  constructor(kinds: readonly ProtobufKind[], messages: readonly MessageDefinition[]) {
    this.#root = kubeMessages();
    for (const definition of messages) this.#root.define(packageOf(definition.name)).add(typeOf(definition));
    this.#root.resolveAll();
    for (const kind of kinds) this.#kinds.set(keyOf(kind.apiVersion, kind.kind), kind);
    this.#unknown = this.#root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
    this.#watchEvent = this.#root.lookupType(`${metaV1Package}.WatchEvent`);
    this.#forms = {
      ...specialForms,
      // An object embedded in another (a revision's): its own enveloped message, as a watch event's object is.
      '.k8s.io.apimachinery.pkg.runtime.RawExtension': {
        toMessage: (json) => ({ raw: this.encode(json) }),
        fromMessage: ({ raw }) => this.decode((raw as Uint8Array | undefined) ?? new Uint8Array()),
      },
    };
  }

  #kindOf(value: unknown): ProtobufKind | undefined {
    if (!isPlainObject(value) || typeof value.kind !== 'string') return undefined;
    const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : '';
    return this.#kinds.get(keyOf(apiVersion, value.kind)) ?? this.#kinds.get(keyOf(undefined, value.kind));
  }

  /** Whether `value` is of a kind the scheme writes. */
  recognizes(value: unknown): boolean {
    return this.#kindOf(value) !== undefined;
  }

  /** The enveloped message of an object in its JSON form. */
  encode(value: unknown): Buffer {
    const kind = this.#kindOf(value);
    if (!kind) throw new Error(`protobuf: no message for ${JSON.stringify((value as Json | undefined)?.kind)}`);
    const { apiVersion, kind: kindName, ...fields } = value as Json;
    const type = this.#root.lookupType(kind.message);
    const raw = type.encode(type.fromObject(toMessage(type, fields, this.#forms))).finish();
    const envelope = this.#unknown.encode({ typeMeta: { apiVersion: apiVersion ?? '', kind: kindName }, raw }).finish();
    return Buffer.concat([protobufMagic, envelope]);
  }

  /**
   * A list written in parts, as {@link encode} writes it whole: `head` takes the byte
   * length of all the items' encodings (the envelope's raw field is length-prefixed),
   * `items` encodes items as the list's repeated field. The list's fields but its
   * items come from `envelope`, whose items are ignored.
   */
  listParts(envelope: unknown): { head(itemsLength: number): Buffer; items(values: readonly unknown[]): Buffer } {
    const kind = this.#kindOf(envelope);
    if (!kind?.itemKind) throw new Error(`protobuf: no list message for ${JSON.stringify((envelope as Json | undefined)?.kind)}`);
    const { apiVersion, kind: kindName, items: _items, ...fields } = envelope as Json;
    const type = this.#root.lookupType(kind.message);
    const rawWithoutItems = type.encode(type.fromObject(toMessage(type, fields, this.#forms))).finish();
    const typeMeta = this.#unknown.encode({ typeMeta: { apiVersion: apiVersion ?? '', kind: kindName } }).finish();
    const rawField = this.#unknown.fields.raw.id;
    return {
      head: (itemsLength) => {
        const rawHeader = protobuf.Writer.create()
          .uint32((rawField << 3) | 2)
          .uint32(rawWithoutItems.length + itemsLength)
          .finish();
        return Buffer.concat([protobufMagic, typeMeta, rawHeader, rawWithoutItems]);
      },
      // Only the repeated field is set, so the message is exactly that field's entries.
      items: (values) => Buffer.from(type.encode(type.fromObject(toMessage(type, { items: values }, this.#forms))).finish()),
    };
  }

  /** The JSON form of an enveloped message; 400 when it is not one, or of a kind the scheme does not know. */
  decode(bytes: Uint8Array): Json {
    if (bytes.length < protobufMagic.length || !protobufMagic.equals(bytes.subarray(0, protobufMagic.length))) {
      throw badRequest(`provided data does not appear to be a protobuf message, expected prefix [${[...protobufMagic].join(' ')}]`);
    }
    const unknown = readMessage(this.#unknown, bytes.subarray(protobufMagic.length));
    const typeMeta = (unknown.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
    const apiVersion = typeMeta.apiVersion ?? '';
    const kindName = typeMeta.kind ?? '';
    const kind = this.#kindOf({ apiVersion, kind: kindName });
    if (!kind) throw badRequest(`no kind "${kindName}" is registered for version "${apiVersion}"`);
    const type = this.#root.lookupType(kind.message);
    const json = fromMessage(type, this.#forms, readMessage(type, (unknown.raw as Uint8Array | undefined) ?? new Uint8Array()));
    if (kind.itemKind && Array.isArray(json.items)) json.items = json.items.map((item: Json) => ({ apiVersion, kind: kind.itemKind, ...item }));
    return { ...(apiVersion ? { apiVersion } : {}), kind: kindName, ...json };
  }

  /** A watch event as a stream frame's message: kube's raw WatchEvent, its object enveloped. */
  encodeWatchEvent(event: { readonly type: string; readonly object: unknown }): Buffer {
    return Buffer.from(this.#watchEvent.encode({ type: event.type, object: { raw: this.encode(event.object) } }).finish());
  }

  /** The JSON form of a watch event frame's message. */
  decodeWatchEvent(bytes: Uint8Array): { type: string; object: Json } {
    const { type, object } = readMessage(this.#watchEvent, bytes) as { type?: string; object?: { raw?: Uint8Array } };
    return { type: type ?? '', object: this.decode(object?.raw ?? new Uint8Array()) };
  }
}

const keyOf = (apiVersion: string | undefined, kind: string): string => `${apiVersion ?? '*'}\u0000${kind}`;

/** A protobufjs type of a message definition. */
function typeOf(definition: MessageDefinition): protobuf.Type {
  const type = new protobuf.Type(definition.name.slice(definition.name.lastIndexOf('.') + 1));
  for (const field of definition.fields) {
    const fieldType = field.type.includes('.') ? `.${field.type}` : field.type;
    type.add(
      field.label === 'map'
        ? new protobuf.MapField(field.name, field.number, 'string', fieldType)
        : new protobuf.Field(field.name, field.number, fieldType, field.label),
    );
  }
  return type;
}

function readMessage(type: protobuf.Type, bytes: Uint8Array): Json {
  try {
    return type.toObject(type.decode(bytes), toObjectOptions);
  } catch (error) {
    throw badRequest(`the protobuf message could not be decoded as ${type.name}: ${(error as Error).message}`);
  }
}

/** The value of a field in the form protobufjs encodes; nulls are absent, as Go's omitted fields. */
function toMessage(type: protobuf.Type, json: Json, forms: SpecialForms): Json {
  const message: Json = {};
  for (const [name, value] of Object.entries(json)) {
    const field = type.fields[name];
    if (!field || value === null || value === undefined) continue;
    const convert = (v: unknown): unknown => toFieldValue(field.resolvedType, v, forms);
    if (field.map) message[name] = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, convert(v)]));
    else if (field.repeated && Array.isArray(value)) message[name] = value.map(convert);
    else message[name] = convert(value);
  }
  return message;
}

function toFieldValue(resolved: protobuf.Type | protobuf.Enum | null, value: unknown, forms: SpecialForms): unknown {
  if (!(resolved instanceof protobuf.Type)) return value;
  const special = forms[resolved.fullName];
  if (special) return special.toMessage(value);
  return isPlainObject(value) ? toMessage(resolved, value, forms) : value;
}

/** The JSON form of a decoded message (as protobufjs' toObject gives it). */
function fromMessage(type: protobuf.Type, forms: SpecialForms, message: Json): Json {
  const json: Json = {};
  for (const [name, value] of Object.entries(message)) {
    const field = type.fields[name];
    if (!field) continue;
    const convert = (v: unknown): unknown => fromFieldValue(field.resolvedType, v, forms);
    if (field.map) json[name] = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, convert(v)]));
    else if (field.repeated) json[name] = (value as unknown[]).map(convert);
    else json[name] = convert(value);
  }
  return json;
}

function fromFieldValue(resolved: protobuf.Type | protobuf.Enum | null, value: unknown, forms: SpecialForms): unknown {
  if (!(resolved instanceof protobuf.Type)) return value;
  const special = forms[resolved.fullName];
  return special ? special.fromMessage(value as Json) : fromMessage(resolved, forms, value as Json);
}
