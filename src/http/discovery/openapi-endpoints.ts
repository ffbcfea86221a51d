/**
 * The OpenAPI endpoints: `/openapi/v3`, `/openapi/v3/<path>` and `/openapi/v2`, each
 * with an ETag and `304 Not Modified` for `If-None-Match`, as kube-aggregator polls
 * them. `/openapi/v2` is JSON (what the aggregator downloads) or protobuf (what
 * kubectl 1.27 and 1.28 ask for), negotiated as kube-openapi does.
 */
import type { Context, Middleware } from 'koa';
import { notAcceptable, pathNotFound } from '../../machinery/errors.js';
import { parseAccept } from '../response/negotiation.js';
import type { OpenApiDocuments } from '../../openapi/documents.js';
import { encodeSwaggerProto } from '../../openapi/v2-proto.js';
import { documentHash } from '../../openapi/v3.js';

/** One encoding of a document. */
interface EncodedDocument {
  readonly contentType: string;
  readonly body: string | Buffer;
}

/** kube-openapi answers both protobuf media types with the current (`.v1.0`) one. */
const protobufType = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const v2MediaTypes = ['application/json', 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf', protobufType] as const;

function matches(range: string, mediaType: string): boolean {
  const [type, subtype] = range.split('/');
  const [wantedType, wantedSubtype] = mediaType.split('/');
  return (type === '*' || type === wantedType) && (subtype === '*' || subtype === wantedSubtype);
}

/** Answers 200 with `encoded`, or 304 when the client's `If-None-Match` holds `etag`. */
function serve(ctx: Context, encoded: EncodedDocument, etag: string): void {
  ctx.status = 200;
  ctx.set('ETag', `"${etag}"`);
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.set('Content-Type', encoded.contentType);
  ctx.body = encoded.body;
}

/** The handlers of the OpenAPI routes. */
export interface OpenApiEndpoints {
  readonly v3Root: Middleware;
  /** Serves the document named by the path below `/openapi/v3/`. */
  readonly v3Document: Middleware;
  readonly v2: Middleware;
}

/** Handlers serving `documents`, encoded once. */
export function openApiEndpoints(documents: OpenApiDocuments): OpenApiEndpoints {
  const json = (value: object): EncodedDocument => ({ contentType: 'application/json', body: JSON.stringify(value) });
  const v3Root = json(documents.v3Root);
  const v3RootHash = documentHash(documents.v3Root);
  const v3 = new Map([...documents.v3].map(([path, { document, hash }]) => [path, { encoded: json(document), hash }]));
  // kube-openapi tags both encodings of v2 with the hash of the JSON; Vary: Accept keeps caches apart.
  const v2Hash = documentHash(documents.v2);
  const v2Proto: EncodedDocument = { contentType: protobufType, body: Buffer.from(encodeSwaggerProto(documents.v2)) };
  const v2Encodings: Readonly<Record<(typeof v2MediaTypes)[number], EncodedDocument>> = {
    'application/json': json(documents.v2),
    'application/com.github.proto-openapi.spec.v2@v1.0+protobuf': v2Proto,
    [protobufType]: v2Proto,
  };

  return {
    v3Root: (ctx) => serve(ctx, v3Root, v3RootHash),
    v3Document: (ctx) => {
      const entry = v3.get(ctx.path.slice('/openapi/v3/'.length));
      if (!entry) throw pathNotFound();
      if (ctx.query.hash === entry.hash) ctx.set('Cache-Control', 'public, immutable');
      serve(ctx, entry.encoded, entry.hash);
    },
    v2: (ctx) => {
      ctx.vary('Accept');
      for (const range of parseAccept(ctx.get('Accept'))) {
        const mediaType = v2MediaTypes.find((m) => matches(range.type, m));
        if (mediaType) return serve(ctx, v2Encodings[mediaType], v2Hash);
      }
      throw notAcceptable([...v2MediaTypes]);
    },
  };
}
