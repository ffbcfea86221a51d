/**
 * Legacy discovery documents: APIVersions (`/api`), APIGroupList (`/apis`),
 * APIGroup (`/apis/<group>`) and APIResourceList (`/apis/<group>/<version>`), and
 * what they share with aggregated discovery: which resources a version serves, their
 * verbs and their subresources, as the endpoint table has them.
 */
import type { ApiGroup, ApiResource } from '../../apis/api-resource.js';
import type { GroupVersionKind } from '../../machinery/meta/group-version-kind.js';
import { endpointTable } from '../../registry/endpoints.js';

/** A resource as one served version presents it, in both discovery formats. */
export interface DiscoveredResource {
  readonly resource: ApiResource;
  readonly kind: GroupVersionKind;
  readonly verbs: readonly string[];
  readonly subresources: readonly DiscoveredSubresource[];
}

/** A subresource as discovery presents it. */
export interface DiscoveredSubresource {
  readonly name: string;
  readonly kind: GroupVersionKind;
  readonly verbs: readonly string[];
}

/**
 * The resources `group` serves in `version`, in the group's order, from its endpoint
 * table: what the resource route serves. A subresource served under a second name
 * (`logs` beside `log`) is listed under both.
 */
export function discoveredResources(group: ApiGroup, version: string): DiscoveredResource[] {
  const endpoints = endpointTable([group]).of(group.name, version);
  return endpoints
    .filter((e) => e.subresource === '')
    .map(({ resource, kind, verbs }) => ({
      resource,
      kind,
      verbs,
      subresources: endpoints
        .filter((e) => e.resource === resource && e.subresource !== '')
        .flatMap((e) => [e.subresource, ...e.aliases].map((name) => ({ name, kind: e.kind, verbs: e.verbs }))),
    }));
}

function groupVersions(group: ApiGroup) {
  return group.versions.map((version) => ({ groupVersion: `${group.name}/${version}`, version }));
}

/** `/api`: Cairn serves no core group versions. */
export function apiVersions() {
  return { kind: 'APIVersions', versions: [], serverAddressByClientCIDRs: [] };
}

/** `/apis/<group>`. */
export function apiGroup(group: ApiGroup) {
  const versions = groupVersions(group);
  return { kind: 'APIGroup', apiVersion: 'v1', name: group.name, versions, preferredVersion: versions[0] };
}

/** `/apis`: the first version of each group is its preferred version. */
export function apiGroupList(groups: readonly ApiGroup[]) {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: groups.map((g) => {
      const { kind: _kind, apiVersion: _apiVersion, ...rest } = apiGroup(g);
      return rest;
    }),
  };
}

// APIResourceList names a subresource `<resource>/<subresource>` beside its resource.
function resourceEntries({ resource, verbs, subresources }: DiscoveredResource) {
  return [
    {
      name: resource.plural,
      singularName: resource.singular,
      namespaced: resource.namespaced,
      kind: resource.kind,
      verbs,
      shortNames: resource.shortNames,
      categories: resource.categories,
    },
    ...subresources.map((sub) => ({
      name: `${resource.plural}/${sub.name}`,
      singularName: '',
      namespaced: resource.namespaced,
      // Only a kind from another group (autoscaling/v1 Scale) carries group and version.
      ...(sub.kind.group === resource.group ? {} : { group: sub.kind.group, version: sub.kind.version }),
      kind: sub.kind.kind,
      verbs: sub.verbs,
    })),
  ];
}

/** `/apis/<group>/<version>`, or undefined when the group does not serve that version. */
export function apiResourceList(group: ApiGroup, version: string) {
  if (!group.versions.includes(version)) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: `${group.name}/${version}`,
    resources: discoveredResources(group, version).flatMap(resourceEntries),
  };
}
