/**
 * The wire formats Cairn speaks, as kube's `NegotiatedSerializer.SupportedMediaTypes()`:
 * negotiation picks among them, in this order for wildcards (the first is the default).
 */
import { protobufScheme } from '../../apis/protobuf.js';
import { servedGroups } from '../../apis/served-groups.js';
import { jsonSerializer } from './json-serializer.js';
import { protobufSerializer } from './protobuf-serializer.js';
import type { Serializer } from './serializer.js';
import { yamlSerializer } from './yaml-serializer.js';

/** Every serializer, the default (JSON) first; protobuf writes the served groups' kinds and Kubernetes' own. */
export const serializers = Object.freeze([jsonSerializer, yamlSerializer, protobufSerializer(protobufScheme(servedGroups))] as const);

/** The short name of a supported format: `json`, `yaml`, `protobuf`. */
export type SerializerFormat = (typeof serializers)[number]['format'];

/** The serializer used when nothing else was negotiated: Status errors, logs' errors. */
export const defaultSerializer: Serializer<SerializerFormat> = jsonSerializer;

const byFormat = new Map<string, Serializer<SerializerFormat>>(serializers.map((s) => [s.format, s]));
const byMediaType = new Map<string, Serializer<SerializerFormat>>(serializers.map((s) => [s.mediaType, s]));

/** The serializer of a format name. */
export function serializerOf(format: SerializerFormat): Serializer<SerializerFormat> {
  return byFormat.get(format)!;
}

/**
 * The serializer of a media type (without parameters), if any: `application/json`, or a
 * structured-syntax suffix of one (`application/merge-patch+json` is JSON).
 */
export function serializerForMediaType(mediaType: string): Serializer<SerializerFormat> | undefined {
  const exact = byMediaType.get(mediaType);
  if (exact) return exact;
  const plus = mediaType.lastIndexOf('+');
  return plus === -1 ? undefined : byMediaType.get(`application/${mediaType.slice(plus + 1)}`);
}
