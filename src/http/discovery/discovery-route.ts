/**
 * The `/api` and `/apis` handlers: the legacy document, or the aggregated
 * APIGroupDiscoveryList when the Accept header asks for it. The aggregated form carries
 * an ETag, so a poller (kube-apiserver's aggregator asks every minute) gets a bodiless
 * 304 while nothing changed.
 */
import type { Context } from 'koa';
import type { ApiGroup } from '../../apis/api-resource.js';
import { aggregatedDiscoveryVersions, apiGroupDiscoveryList } from './aggregated-discovery.js';
import { aggregatedDiscoveryFormats, aggregatedDiscoveryMediaType, negotiateDiscovery } from './discovery-negotiation.js';
import { encode } from '../response/negotiation.js';
import { serializerOf } from '../serializers/serializers.js';
import { documentHash } from '../../openapi/v3.js';

// An aggregated document serialized once, with the validator a poller sends back in If-None-Match.
interface Rendered {
  readonly body: Buffer | string;
  readonly etag: string;
}

/**
 * A handler serving `legacy` or the aggregated list of `groups`. Both are fixed for
 * the life of the process, so the aggregated bodies and their ETags are built once.
 */
export function discoveryRoute(legacy: object, groups: readonly ApiGroup[]): (ctx: Context) => void {
  // Each version in each format is its own representation, with its own ETag.
  const aggregated = new Map<string, Rendered>(
    aggregatedDiscoveryVersions.flatMap((version) => {
      const document = apiGroupDiscoveryList(groups, version);
      return aggregatedDiscoveryFormats.map((format) => {
        const mediaType = aggregatedDiscoveryMediaType(version, format);
        return [mediaType, { body: serializerOf(format).encode(document), etag: `"${documentHash({ mediaType, document })}"` }] as const;
      });
    }),
  );

  return (ctx) => {
    const representation = negotiateDiscovery(ctx.get('Accept'));
    ctx.set('Vary', 'Accept');
    if ('legacy' in representation) {
      const { body, contentType } = encode(legacy, representation.legacy);
      ctx.type = contentType;
      ctx.body = body;
      return;
    }
    const mediaType = aggregatedDiscoveryMediaType(representation.aggregated, representation.format);
    const { body, etag } = aggregated.get(mediaType)!;
    // Set verbatim: Koa's `ctx.type` would rewrite the parameters clients switch on.
    ctx.set('Content-Type', mediaType);
    ctx.set('ETag', etag);
    ctx.set('Cache-Control', 'public');
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = body;
  };
}
