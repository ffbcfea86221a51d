/**
 * Content negotiation: which media type a response is written in, and how a
 * request body is read.
 */
import YAML from 'yaml';
import { decodeJson, decodeYaml } from '../machinery/bounded-decoding.js';
import { notAcceptable, unsupportedMediaType } from '../machinery/errors.js';
import type { MetaVersion } from '../machinery/partial-object-metadata.js';

/** A media type Cairn writes objects in. */
export type OutputFormat = 'json' | 'yaml';

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
        if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim().replace(/^"|"$/g, '');
      }
      const q = params.q === undefined ? 1 : Number(params.q);
      delete params.q;
      return { type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 0 };
    })
    .filter((r) => r.type && r.q > 0)
    .sort((a, b) => b.q - a.q);
}

const formats: Readonly<Record<string, OutputFormat>> = {
  'application/json': 'json',
  'application/yaml': 'yaml',
  'application/*': 'json',
  '*/*': 'json',
};

/** The format Cairn writes a media type (or range) in, if it writes it at all. */
export function outputFormatOf(type: string): OutputFormat | undefined {
  return formats[type];
}

/** Picks the output format for plain (untransformed) responses; 406 when the client accepts none of ours. */
export function negotiateOutput(accept: string | undefined): OutputFormat {
  for (const range of parseAccept(accept)) {
    // A range asking for another representation (`as=Table`, `as=PartialObjectMetadata`) is not ours to satisfy.
    if (range.params.as !== undefined) continue;
    const format = formats[range.type];
    if (format) return format;
  }
  throw notAcceptable(['application/json', 'application/yaml']);
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

function transformOf(params: Readonly<Record<string, string>>, endpoint: Endpoint): Transform | undefined {
  const as = transformsOf[endpoint].find((a) => a === params.as);
  const version = params.v === 'v1' || params.v === 'v1beta1' ? params.v : undefined;
  return as && version && params.g === 'meta.k8s.io' ? { as, version } : undefined;
}

/**
 * Picks the format and transformation of a resource response from Accept, in the
 * client's order of preference; 406 when none can be served. Watch streams are JSON only.
 */
export function negotiateResourceOutput(accept: string | undefined, endpoint: Endpoint): OutputTarget {
  for (const range of parseAccept(accept)) {
    const format = formats[range.type];
    if (!format || (endpoint === 'watch' && format !== 'json')) continue;
    if (range.params.as === undefined) return { format };
    const transform = transformOf(range.params, endpoint);
    if (transform) return { format, transform };
  }
  const types = endpoint === 'watch' ? ['application/json'] : ['application/json', 'application/yaml'];
  throw notAcceptable(transformsOf[endpoint].flatMap((as) => types.map((t) => `${t};as=${as};g=meta.k8s.io;v=v1`)).concat(types));
}

/** The media types of writes (create, update). */
export const writeMediaTypes = ['application/json', 'application/yaml'] as const;

/** The media type of a request, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Decodes a JSON or YAML body into a value, within the decoding bounds; 400 for malformed input. */
export function decodeBody(raw: string, type: string, accepted: readonly string[]): unknown {
  const effective = type === '' ? 'application/json' : type;
  if (!accepted.includes(effective)) throw unsupportedMediaType(type, accepted);
  return effective.endsWith('yaml') ? decodeYaml(raw) : decodeJson(raw);
}

/** Serializes a value in the negotiated format. */
export function encode(value: unknown, format: OutputFormat): { body: string; contentType: string } {
  if (format === 'yaml') return { body: YAML.stringify(value), contentType: 'application/yaml' };
  return { body: JSON.stringify(value), contentType: 'application/json' };
}
