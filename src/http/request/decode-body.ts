/**
 * How a request body is read: its media type, and its decoding by the serializer of that
 * type within the decoding bounds. Every body a handler reads (objects, patches, options,
 * log lines) is decoded here.
 */
import { unsupportedMediaType } from '../../machinery/errors.js';
import { defaultSerializer, serializerForMediaType, serializers } from '../serializers/serializers.js';

/** The media types of writes (create, update). */
export const writeMediaTypes = serializers.map((s) => s.mediaType);

/** The media type of a request, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * Decodes a body in one of the `accepted` media types with its serializer, within the
 * decoding bounds; 415 for another type, 400 for malformed input. No Content-Type is JSON.
 */
export function decodeBody(raw: Buffer | string, type: string, accepted: readonly string[]): unknown {
  const effective = type === '' ? defaultSerializer.mediaType : type;
  const serializer = accepted.includes(effective) ? serializerForMediaType(effective) : undefined;
  if (!serializer) throw unsupportedMediaType(accepted);
  return serializer.decode(raw);
}
