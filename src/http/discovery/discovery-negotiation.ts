/**
 * Which discovery document an Accept header asks for at `/api` and `/apis`: the
 * aggregated APIGroupDiscoveryList, or the legacy APIVersions/APIGroupList. As in
 * kube-apiserver, the best media range Cairn can write decides, so an Accept listing
 * v2beta1 before v2 gets v2beta1, and one listing `application/json` first gets the
 * legacy document. Either is JSON or protobuf, as the range says.
 */
import { aggregatedDiscoveryVersions, type AggregatedDiscoveryVersion } from './aggregated-discovery.js';
import { negotiateOutput, outputFormatOf, parseAccept, type OutputFormat } from '../response/negotiation.js';
import { serializerOf } from '../serializers/serializers.js';

/** The formats of the aggregated document: kube's aggregated discovery speaks no YAML. */
export type AggregatedDiscoveryFormat = Extract<OutputFormat, 'json' | 'protobuf'>;

/** The aggregated discovery formats, by which a rendering is looked up. */
export const aggregatedDiscoveryFormats: readonly AggregatedDiscoveryFormat[] = ['json', 'protobuf'];

/** The negotiated representation of a discovery root. */
export type DiscoveryRepresentation =
  { readonly aggregated: AggregatedDiscoveryVersion; readonly format: AggregatedDiscoveryFormat } | { readonly legacy: OutputFormat };

/**
 * The exact Content-Type of an aggregated discovery response: clients tell the two
 * documents apart by these parameters, not by the body.
 */
export function aggregatedDiscoveryMediaType(version: AggregatedDiscoveryVersion, format: AggregatedDiscoveryFormat = 'json'): string {
  return `${serializerOf(format).mediaType};g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

function aggregatedOf(range: ReturnType<typeof parseAccept>[number]): Extract<DiscoveryRepresentation, { aggregated: unknown }> | undefined {
  if (range.params.as !== 'APIGroupDiscoveryList' || range.params.g !== 'apidiscovery.k8s.io') return undefined;
  const format = aggregatedDiscoveryFormats.find((f) => f === outputFormatOf(range.type));
  const aggregated = aggregatedDiscoveryVersions.find((v) => v === range.params.v);
  return format && aggregated ? { aggregated, format } : undefined;
}

/**
 * Picks the discovery representation for `accept`. When no range fits, the legacy
 * negotiation answers 406, as kube-apiserver's legacy handler does for an Accept that
 * asks only for an aggregated version it does not serve.
 */
export function negotiateDiscovery(accept: string | undefined): DiscoveryRepresentation {
  for (const range of parseAccept(accept)) {
    if (range.params.as === undefined) {
      const legacy = outputFormatOf(range.type);
      if (legacy) return { legacy };
    } else {
      const aggregated = aggregatedOf(range);
      if (aggregated) return aggregated;
    }
  }
  return { legacy: negotiateOutput(accept) };
}
