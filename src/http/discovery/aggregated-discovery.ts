/**
 * Aggregated discovery: one APIGroupDiscoveryList carrying every group, version and
 * resource, so a client discovers with one request instead of one per group version.
 * kube-apiserver's aggregator polls it from `/apis`, and kubectl reads it straight
 * from a standalone Cairn.
 */
import type { ApiGroup } from '../../apis/api-resource.js';
import { discoveredResources, type DiscoveredResource } from './discovery.js';

/** The versions of `apidiscovery.k8s.io` Cairn serves, newest first. */
export const aggregatedDiscoveryVersions = ['v2', 'v2beta1'] as const;

/** A version of `apidiscovery.k8s.io`; v2beta1 has the same shape as v2. */
export type AggregatedDiscoveryVersion = (typeof aggregatedDiscoveryVersions)[number];

function resourceDiscovery({ resource, kind, verbs, subresources }: DiscoveredResource) {
  return {
    resource: resource.plural,
    responseKind: kind,
    scope: resource.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: resource.singular,
    verbs,
    shortNames: resource.shortNames,
    categories: resource.categories,
    subresources: subresources.map((sub) => ({ subresource: sub.name, responseKind: sub.kind, verbs: sub.verbs })),
  };
}

/**
 * The APIGroupDiscoveryList of `groups` (none for `/api`, since Cairn serves no core
 * group). Each group lists its versions preferred first, which is how clients pick
 * the preferred version.
 */
export function apiGroupDiscoveryList(groups: readonly ApiGroup[], version: AggregatedDiscoveryVersion) {
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: groups.map((group) => ({
      metadata: { name: group.name },
      versions: group.versions.map((v) => ({
        version: v,
        resources: discoveredResources(group, v).map(resourceDiscovery),
        freshness: 'Current',
      })),
    })),
  };
}
