/**
 * The serializer seam, as kube's `runtime.SerializerInfo` with its
 * `StreamSerializerInfo`: one media type, how a value is written and read in it,
 * and how a stream of values (watch events) is framed. Adding a wire format
 * (Protocol Buffers) is one more Serializer in `serializers.ts`.
 */

/** Splits a stream into values: what separates or prefixes each encoded value. */
export interface StreamFramer {
  /** The bytes of one frame holding `encoded` (JSON: the value and a newline). */
  frame(encoded: Buffer | string): Buffer | string;
}

/**
 * One wire format.
 *
 * @example
 * const body = jsonSerializer.encode(status);        // '{"kind":"Status",…}'
 * const chunk = jsonSerializer.streamFramer!.frame(jsonSerializer.encode(event));
 */
export interface Serializer<Format extends string = string> {
  /** The short name handlers pass around (`OutputTarget.format`): `json`, `yaml`. */
  readonly format: Format;
  /** The media type it writes and reads, without parameters: `application/json`. */
  readonly mediaType: string;
  /** Writes one value. */
  encode(value: unknown): Buffer | string;
  /** Reads one value within the decoding bounds (nesting, aliases); 400 for malformed input. */
  decode(raw: Buffer | string): unknown;
  /** How values follow one another in a stream; undefined when the format does not stream (YAML). */
  readonly streamFramer?: StreamFramer;
}
