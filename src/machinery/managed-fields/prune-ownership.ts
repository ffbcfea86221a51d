/**
 * The prune's questions answered across apiVersions, as structured-merge-diff's
 * `prune`, `addBackOwnedItems` and `addBackDanglingItems` answer them by converting
 * the merged object into each manager's version: an applier's previous
 * configuration, and every other manager's fields, are paths of the version they
 * were written in.
 */
import type { JsonSchema, SchemaResolver } from '../json-schema.js';
import type { KubeObject } from '../meta/object.js';
import { compareObjects } from './compare.js';
import type { Path } from './field-path.js';
import { fieldSetOf } from './field-set-of.js';
import { FieldSet } from './field-set.js';
import type { FieldOwner } from './managed-fields.js';
import type { ObjectVersions } from './object-versions.js';
import type { PruneOwnership } from './prune.js';
import { withoutPath } from './without-path.js';

/** A manager's fields, in the apiVersion they were written in. */
export type VersionedFields = Pick<FieldOwner, 'apiVersion' | 'fields'>;

/**
 * Answers the prune of `merged` (an object of the request's version, of `schema`)
 * from `last`, the applier's previous configuration, and `owners`, everyone's fields
 * including the applier's new configuration. Sets of the request's version are read
 * directly. A path is read in another version through its image there: what
 * removing it from `merged` removes or changes once converted. So `.spec.parallelism`
 * of v1alpha1 is in a previous v1 configuration that set `.spec.replicas`.
 *
 * Undefined when `last` is in a version no longer served: kube prunes nothing then.
 */
export function pruneOwnership(
  merged: KubeObject,
  last: VersionedFields,
  owners: readonly VersionedFields[],
  versions: ObjectVersions,
  schema: JsonSchema,
  resolve: SchemaResolver,
): PruneOwnership | undefined {
  const lastView = versions.view(merged, last.apiVersion);
  if (!lastView) return undefined;
  let ownedHere = FieldSet.empty;
  const ownedElsewhere = new Map<string, FieldSet>();
  for (const { apiVersion, fields } of owners) {
    if (versions.isRequestVersion(apiVersion)) ownedHere = ownedHere.union(fields);
    // kube adds back nothing for a version not served: its owners are dropped anyway.
    else if (versions.view(merged, apiVersion)) ownedElsewhere.set(apiVersion, (ownedElsewhere.get(apiVersion) ?? FieldSet.empty).union(fields));
  }

  const images = new Map<string, FieldSet>();
  const image = (path: Path, apiVersion: string): FieldSet => {
    const key = JSON.stringify([apiVersion, path]);
    let found = images.get(key);
    if (!found) {
      // Both are served: the versions asked about are those `merged` was seen in.
      const base = versions.view(merged, apiVersion)!;
      const probe = versions.view(withoutPath(merged, schema, resolve, path) as KubeObject, apiVersion)!;
      const { added, modified, removed } = compareObjects(base.object, probe.object, base.schema, resolve);
      images.set(key, (found = added.union(modified).union(removed)));
    }
    return found;
  };
  const elsewhere = (test: (image: FieldSet, fields: FieldSet) => boolean, path: Path): boolean =>
    [...ownedElsewhere].some(([apiVersion, fields]) => test(image(path, apiVersion), fields));

  const ownership: PruneOwnership = {
    lastTouches: (path) => touches(last.fields, path),
    lastHas: (path) => last.fields.has(path),
    ownedTouches: (path) => touches(ownedHere, path) || elsewhere(meets, path),
    ownedHas: (path) => ownedHere.has(path) || elsewhere((found, fields) => topmost(found).some((p) => fields.has(p)), path),
  };
  if (versions.isRequestVersion(last.apiVersion)) return ownership;

  // Only what an applier can own (leaves, list items, map entries) was in its previous
  // configuration; containers emptied on the way are not counted against it.
  const setHere = fieldSetOf(merged, schema, resolve);
  const setThere = fieldSetOf(lastView.object, lastView.schema, resolve);
  return {
    ...ownership,
    lastTouches: (path) => meets(image(path, last.apiVersion), last.fields),
    lastHas: (path) => {
      if (!setHere.has(path)) return false;
      const tops = topmost(image(path, last.apiVersion).intersection(setThere));
      return tops.length > 0 && tops.every((p) => last.fields.has(p));
    },
  };
}

/** Whether `path`, or something under it, is in `set`. */
function touches(set: FieldSet, path: Path): boolean {
  return path
    .slice(0, -1)
    .reduce((under, element) => under.child(element), set)
    .touches(path[path.length - 1]);
}

function meets(a: FieldSet, b: FieldSet): boolean {
  return !a.intersection(b).isEmpty;
}

/** The members of `set` under no other member: what a removal took, without what went with it. */
function topmost(set: FieldSet): Path[] {
  return set.paths().filter((path) => !path.slice(0, -1).some((_, i) => set.has(path.slice(0, i + 1))));
}
