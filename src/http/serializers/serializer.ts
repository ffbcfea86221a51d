/**
 * The serializer seam, as kube's `runtime.SerializerInfo` with its
 * `StreamSerializerInfo`: one media type, how a value is written and read in it,
 * and how a stream of values (watch events) is written and framed. A wire format is
 * one Serializer in `serializers.ts`.
 */

/** A watch event in its JSON form. */
export interface WatchEventValue {
  readonly type: string;
  readonly object: unknown;
}

/** How a format writes a stream of watch events (kube's `StreamSerializerInfo`). */
export interface StreamSerializer {
  /** The Content-Type of the stream: kube adds `;stream=watch` to every media type but JSON's. */
  readonly mediaType: string;
  /** Writes one event (Protocol Buffers: an unenveloped WatchEvent whose object is enveloped). */
  encodeEvent(event: WatchEventValue): Buffer | string;
  /** The bytes of one frame holding an encoded event (JSON: the value and a newline). */
  frame(encoded: Buffer | string): Buffer | string;
}

/**
 * A list written a page at a time, byte for byte what the format writes for the whole
 * list: the envelope up to its items, the items of each page, then the rest.
 */
export interface ListEncoder {
  /** Whether {@link head} needs the byte length of every item's encoding first (Protocol Buffers' length-prefixed envelope). */
  readonly needsItemsLength: boolean;
  head(itemsLength?: number): Buffer | string;
  /** The encoding of the next items; `first` for the list's first ones (where JSON puts no comma). */
  items(values: readonly unknown[], first: boolean): Buffer | string;
  readonly tail: Buffer | string;
}

/**
 * One wire format.
 *
 * @example
 * const body = jsonSerializer.encode(status);        // '{"kind":"Status",…}'
 * const stream = jsonSerializer.streamSerializer!;
 * const chunk = stream.frame(stream.encodeEvent(event));
 */
export interface Serializer<Format extends string = string> {
  /** The short name handlers pass around (`OutputTarget.format`): `json`, `yaml`, `protobuf`. */
  readonly format: Format;
  /** The media type it writes and reads, without parameters: `application/json`. */
  readonly mediaType: string;
  /** Writes one value. */
  encode(value: unknown): Buffer | string;
  /** Reads one value within the decoding bounds (nesting, aliases); 400 for malformed input. */
  decode(raw: Buffer | string): unknown;
  /** How a list whose `key` holds its items (`items`, a Table's `rows`) is written in parts; `envelope` is the list without them. */
  listEncoder(envelope: Readonly<Record<string, unknown>>, key: string): ListEncoder;
  /** How watch events are written in a stream; undefined when the format does not stream (YAML). */
  readonly streamSerializer?: StreamSerializer;
}
