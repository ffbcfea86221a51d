/**
 * Finding an ownerReference's owner, with kube's rules across scopes: an owner's
 * group and kind name a served resource (any version of the group: the reference's
 * version need not be the one read); a namespaced owner is looked for in its
 * dependent's namespace, so one in another namespace is absent, and a cluster-scoped
 * dependent cannot have one at all; a cluster-scoped owner serves dependents anywhere.
 */
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { foregroundFinalizer } from '../../machinery/meta/finalizers.js';
import type { AbsentOwnerCache } from './absent-owner-cache.js';
import type { OwnerState } from './decisions.js';
import type { MetadataClient, ObjectLocation, ServedResource } from './metadata-client.js';

/** The group of an `apiVersion`: `cairn.dev/v1` → `cairn.dev`, `v1` → the core group. */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** Where `reference`'s owner would be for a dependent at `dependent`, or `unserved` for a kind the server does not serve. */
export function ownerLocation(dependent: ObjectLocation, reference: OwnerReference, served: readonly ServedResource[]): ObjectLocation | 'unserved' | 'absent' {
  const group = groupOf(reference.apiVersion);
  const resource = served.find((r) => r.group === group && r.kind === reference.kind);
  if (!resource) return 'unserved';
  if (resource.namespaced && !dependent.resource.namespaced) return 'absent';
  return { resource, namespace: resource.namespaced ? dependent.namespace : undefined, name: reference.name };
}

/**
 * The state of `reference`'s owner now, read live (a cache may not have seen it yet),
 * unless `absent` knows it is gone; an owner found absent is remembered there.
 */
export async function ownerState(
  metadata: MetadataClient,
  dependent: ObjectLocation,
  reference: OwnerReference,
  served: readonly ServedResource[],
  absent?: AbsentOwnerCache,
): Promise<OwnerState> {
  const location = ownerLocation(dependent, reference, served);
  if (typeof location === 'string') return location;
  if (absent?.has(location, reference.uid)) return 'absent';
  const owner = (await metadata.get(location))?.metadata;
  if (!owner || owner.uid !== reference.uid) {
    absent?.add(location, reference.uid);
    return 'absent';
  }
  return owner.deletionTimestamp && owner.finalizers?.includes(foregroundFinalizer) ? 'deletingDependents' : 'present';
}
