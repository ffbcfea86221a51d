/**
 * Which discovery document an Accept header asks for at `/api` and `/apis`: the
 * aggregated APIGroupDiscoveryList, or the legacy APIVersions/APIGroupList. As in
 * kube-apiserver, the best media range Cairn can write decides, so an Accept listing
 * v2beta1 before v2 gets v2beta1, and one listing `application/json` first gets the
 * legacy document.
 */
import { aggregatedDiscoveryVersions, type AggregatedDiscoveryVersion } from './aggregated-discovery.js';
import { negotiateOutput, outputFormatOf, parseAccept, type OutputFormat } from '../response/negotiation.js';

/** The negotiated representation of a discovery root. */
export type DiscoveryRepresentation = { readonly aggregated: AggregatedDiscoveryVersion } | { readonly legacy: OutputFormat };

/**
 * The exact Content-Type of an aggregated discovery response: clients tell the two
 * formats apart by these parameters, not by the body.
 */
export function aggregatedDiscoveryMediaType(version: AggregatedDiscoveryVersion): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

function aggregatedVersionOf(range: ReturnType<typeof parseAccept>[number]): AggregatedDiscoveryVersion | undefined {
  if (range.params.as !== 'APIGroupDiscoveryList' || range.params.g !== 'apidiscovery.k8s.io') return undefined;
  if (outputFormatOf(range.type) !== 'json') return undefined;
  return aggregatedDiscoveryVersions.find((v) => v === range.params.v);
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
      const aggregated = aggregatedVersionOf(range);
      if (aggregated) return { aggregated };
    }
  }
  return { legacy: negotiateOutput(accept) };
}
