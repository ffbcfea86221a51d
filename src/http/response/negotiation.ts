/**
 * Content negotiation: which serializer (and representation) a response is written in.
 */
import { notAcceptable } from '../../machinery/errors.js';
import type { MetaVersion } from '../../machinery/types/partial-object-metadata.js';
import type { Serializer } from '../serializers/serializer.js';
import { defaultSerializer, serializerOf, serializers, type SerializerFormat } from '../serializers/serializers.js';
import { cacheEncode, encodingIdentifier } from '../../machinery/caching-object.js';
import { deepFreeze } from '../../machinery/meta/object.js';

/** A media type Cairn writes objects in, by its serializer's short name. */
export type OutputFormat = SerializerFormat;

interface MediaRange {
  readonly type: string;
  readonly params: Readonly<Record<string, string>>;
  readonly q: number;
}

/** Parses an Accept header into media ranges, best first (stable for equal q). */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header?.trim()) return [{ type: '*/*', params: {}, q: 1 }];
  return header
    .split(',')
    .map((part) => {
      const [type = '', ...rest] = part.split(';').map((s) => s.trim());
      const params: Record<string, string> = {};
      for (const p of rest) {
        const eq = p.indexOf('=');
        if (eq > 0)
          params[p.slice(0, eq).trim().toLowerCase()] = p
            .slice(eq + 1)
            .trim()
            .replace(/^"|"$/g, '');
      }
      const q = params.q === undefined ? 1 : Number(params.q);
      delete params.q;
      return { type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 0 };
    })
    .filter((r) => r.type && r.q > 0)
    .sort((a, b) => b.q - a.q);
}

/** The serializer of a media type or range Cairn writes; wildcards get the default (JSON). */
function serializerOfRange(type: string): Serializer<OutputFormat> | undefined {
  return type === '*/*' || type === 'application/*' ? defaultSerializer : serializers.find((s) => s.mediaType === type);
}

/** The format Cairn writes a media type (or range) in, if it writes it at all. */
export function outputFormatOf(type: string): OutputFormat | undefined {
  return serializerOfRange(type)?.format;
}

/** Picks the serializer for plain (untransformed) responses; undefined when the client accepts none of ours. */
export function negotiateSerializer(accept: string | undefined): Serializer<OutputFormat> | undefined {
  for (const range of parseAccept(accept)) {
    // A range asking for another representation (`as=Table`, `as=PartialObjectMetadata`) is not ours to satisfy.
    if (range.params.as !== undefined) continue;
    const serializer = serializerOfRange(range.type);
    if (serializer) return serializer;
  }
  return undefined;
}

/** Picks the output format for plain (untransformed) responses; 406 when the client accepts none of ours. */
export function negotiateOutput(accept: string | undefined): OutputFormat {
  const serializer = negotiateSerializer(accept);
  if (!serializer) throw notAcceptable(serializers.map((s) => s.mediaType));
  return serializer.format;
}

/**
 * The serializer of a Status error, as kube's `ErrorNegotiated`: what the client accepts
 * among plain representations, JSON when it accepts none (a 406 must still be readable).
 */
export function statusSerializer(accept: string | undefined): Serializer<OutputFormat> {
  return negotiateSerializer(accept) ?? defaultSerializer;
}

/** What a resource endpoint answers with: one object, a list, or a stream of watch events. */
export type Endpoint = 'object' | 'list' | 'watch';

/** The meta.k8s.io representation a client asked objects to be transformed into. */
export interface Transform {
  readonly as: 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';
  readonly version: MetaVersion;
}

/** A negotiated response: its format, and the transformation of its objects, if any. */
export interface OutputTarget {
  readonly format: OutputFormat;
  readonly transform?: Transform;
}

// kube serves lists as PartialObjectMetadataList and single objects (and each watch event) as PartialObjectMetadata.
const transformsOf: Readonly<Record<Endpoint, readonly Transform['as'][]>> = {
  object: ['Table', 'PartialObjectMetadata'],
  watch: ['Table', 'PartialObjectMetadata'],
  list: ['Table', 'PartialObjectMetadataList'],
};

// As kube's AllowsMediaTypeTransform: a Table is written only as JSON or YAML (it has no protobuf message).
const tableFormats: readonly OutputFormat[] = ['json', 'yaml'];

function transformOf(params: Readonly<Record<string, string>>, endpoint: Endpoint, format: OutputFormat): Transform | undefined {
  const as = transformsOf[endpoint].find((a) => a === params.as && (a !== 'Table' || tableFormats.includes(format)));
  const version = params.v === 'v1' || params.v === 'v1beta1' ? params.v : undefined;
  return as && version && params.g === 'meta.k8s.io' ? { as, version } : undefined;
}

/**
 * Picks the format and transformation of a resource response from Accept, in the
 * client's order of preference; 406 when none can be served. Watches need a format
 * that streams (JSON or protobuf, not YAML); a Table is JSON or YAML.
 *
 * The 406 lists what kube's `NegotiateOutputMediaType` lists: the plain media types, never
 * the transformations; or, when only a format without a framer matched a watch, the
 * stream media types (`NegotiateOutputMediaTypeStream`).
 */
export function negotiateResourceOutput(accept: string | undefined, endpoint: Endpoint): OutputTarget {
  const key = `${endpoint} ${accept ?? ''}`;
  let target = negotiated.get(key);
  if (target === undefined) {
    target = deepFreeze(negotiateResourceOutputOnce(accept, endpoint));
    // Clients send a handful of Accept headers; one that sends a new one each time must not grow this.
    if (negotiated.size >= maxNegotiated) negotiated.clear();
    negotiated.set(key, target);
  }
  return target;
}

/** The Accept headers negotiated so far, by endpoint, and their answers (each frozen, shared by the requests sending it). */
const negotiated = new Map<string, OutputTarget>();
const maxNegotiated = 256;

function negotiateResourceOutputOnce(accept: string | undefined, endpoint: Endpoint): OutputTarget {
  let unframed = false;
  for (const range of parseAccept(accept)) {
    const serializer = serializerOfRange(range.type);
    if (!serializer) continue;
    const format = serializer.format;
    const transform = range.params.as === undefined ? undefined : transformOf(range.params, endpoint, format);
    if (range.params.as !== undefined && !transform) continue;
    if (endpoint === 'watch' && !serializer.streamSerializer) {
      unframed = true;
      continue;
    }
    return transform ? { format, transform } : { format };
  }
  throw notAcceptable(unframed ? serializers.filter((s) => s.streamSerializer).map((s) => `${s.mediaType};stream=watch`) : serializers.map((s) => s.mediaType));
}

/**
 * Serializes a value in the negotiated format (or with the given serializer). A `shared`
 * value is one storage hands to every reader (the object cache's, deep-frozen): it is
 * encoded once per format and the encoding shared while the object lives
 * (`caching-object.ts`), so repeated GETs of an object cost no serialization.
 */
export function encode(value: unknown, format: OutputFormat | Serializer, shared = false): { body: Buffer | string; contentType: string } {
  const serializer = typeof format === 'string' ? serializerOf(format) : format;
  const body = shared ? cacheEncode(value as object, encodingIdentifier(serializer.mediaType), (v) => serializer.encode(v)) : serializer.encode(value);
  return { body, contentType: serializer.mediaType };
}
