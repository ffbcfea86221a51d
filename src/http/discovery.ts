/**
 * Legacy discovery documents: APIVersions (`/api`), APIGroupList (`/apis`),
 * APIGroup (`/apis/<group>`) and APIResourceList (`/apis/<group>/<version>`).
 */
import type { ApiGroup, ApiResource } from '../apis/api-resource.js';

/** The verbs every resource of the current milestone serves. */
const resourceVerbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

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

function resourceEntry(resource: ApiResource) {
  return {
    name: resource.plural,
    singularName: resource.singular,
    namespaced: resource.namespaced,
    kind: resource.kind,
    verbs: resourceVerbs,
    shortNames: resource.shortNames,
    categories: resource.categories,
  };
}

/** `/apis/<group>/<version>`, or undefined when the group does not serve that version. */
export function apiResourceList(group: ApiGroup, version: string) {
  if (!group.versions.includes(version)) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: `${group.name}/${version}`,
    resources: group.resources.filter((r) => r.versions.some((v) => v.version === version)).map(resourceEntry),
  };
}
