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
  /** How watch events are written in a stream; undefined when the format does not stream (YAML). */
  readonly streamSerializer?: StreamSerializer;
}
