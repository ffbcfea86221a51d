/**
 * kube-apiserver keeps at most ten Update entries: a client that writes with a new
 * User-Agent or fieldManager on every request would otherwise grow managedFields
 * without bound. The oldest entries are folded, per apiVersion, into one entry of
 * the manager `ancient-changes`.
 */
import { entrySeconds, ownerIdentity, type FieldOwner } from './managed-fields.js';

/** kube's DefaultMaxUpdateManagers. */
export const maxUpdateManagers = 10;

/** The manager name of the entries old Update entries are folded into. */
export const ancientChangesManager = 'ancient-changes';

/**
 * `owners` with the oldest Update owners merged into `ancient-changes` entries (one per
 * apiVersion, carrying the time of the newest owner merged into it) until at most
 * `max` Update owners are left. As kube, an owner is only folded when an older one of
 * its apiVersion exists to fold it with, so the count may stay above `max`.
 */
export function capUpdateOwners(all: readonly FieldOwner[], max = maxUpdateManagers): FieldOwner[] {
  const owners = all.filter((owner) => !owner.fields.isEmpty);
  const updaters = owners.filter((owner) => owner.operation === 'Update');
  if (updaters.length <= max) return owners;

  const byAge = updaters
    .map((owner) => ({ owner, seconds: entrySeconds(owner.time), id: ownerIdentity(owner) }))
    .sort((p, q) => p.seconds - q.seconds || (p.id < q.id ? -1 : p.id > q.id ? 1 : 0))
    .map(({ owner }) => owner);
  const kept = new Set(owners);
  const buckets = new Map<string, FieldOwner>();
  const firstOfVersion = new Map<string, FieldOwner>();
  let count = updaters.length;
  for (const owner of byAge) {
    if (count <= max) break;
    const first = firstOfVersion.get(owner.apiVersion);
    if (!first) {
      firstOfVersion.set(owner.apiVersion, owner);
      continue;
    }
    const existing = buckets.get(owner.apiVersion) ?? findBucket(owners, owner.apiVersion);
    let bucketFields = existing?.fields;
    if (!bucketFields) {
      // The first owner of this version becomes the bucket.
      kept.delete(first);
      bucketFields = first.fields;
    }
    if (existing) kept.delete(existing);
    kept.delete(owner);
    buckets.set(owner.apiVersion, {
      manager: ancientChangesManager,
      operation: 'Update',
      apiVersion: owner.apiVersion,
      fields: bucketFields.union(owner.fields),
      ...(owner.time ? { time: owner.time } : {}),
    });
    count--;
  }
  return [...kept, ...buckets.values()];
}

function findBucket(owners: readonly FieldOwner[], apiVersion: string): FieldOwner | undefined {
  return owners.find((o) => o.operation === 'Update' && o.manager === ancientChangesManager && o.apiVersion === apiVersion && !o.subresource);
}
