/**
 * `application/vnd.kubernetes.protobuf`: the kinds of a ProtobufScheme in kube's
 * envelope. Watch streams are kube's: each frame is a 4-byte big-endian length and an
 * unenveloped WatchEvent, under the media type `…;stream=watch`.
 */
import type { ProtobufScheme } from '../../machinery/protobuf/protobuf-scheme.js';
import type { Serializer, WatchEventValue } from './serializer.js';

/** The media type of Kubernetes' Protocol Buffers. */
export const protobufMediaType = 'application/vnd.kubernetes.protobuf';

/**
 * kube's LengthDelimitedFramer: the frame's length, 4 bytes big-endian, then the frame.
 * The frame gets its own memory, never a slice of Node's shared pool, which the watch
 * cache would hold whole for as long as it keeps the frame (`watch-encoder.ts`).
 */
function lengthDelimited(encoded: Buffer | string): Buffer {
  const bytes = typeof encoded === 'string' ? Buffer.from(encoded) : encoded;
  const frame = Buffer.allocUnsafeSlow(4 + bytes.length);
  frame.writeUInt32BE(bytes.length);
  bytes.copy(frame, 4);
  return frame;
}

/** The serializer of a scheme's kinds; negotiation never picks it for a value of another kind (a Table). */
export function protobufSerializer(scheme: ProtobufScheme): Serializer<'protobuf'> {
  return Object.freeze({
    format: 'protobuf',
    mediaType: protobufMediaType,
    encode: (value: unknown) => scheme.encode(value),
    decode: (raw: Buffer | string) => scheme.decode(typeof raw === 'string' ? Buffer.from(raw) : raw),
    listEncoder(envelope: Readonly<Record<string, unknown>>) {
      const parts = scheme.listParts(envelope);
      return {
        needsItemsLength: true,
        head: (itemsLength = 0) => parts.head(itemsLength),
        items: (values: readonly unknown[]) => parts.items(values),
        tail: Buffer.alloc(0),
      };
    },
    streamSerializer: Object.freeze({
      mediaType: `${protobufMediaType};stream=watch`,
      encodeEvent: (event: WatchEventValue) => scheme.encodeWatchEvent(event),
      frame: lengthDelimited,
    }),
  });
}
