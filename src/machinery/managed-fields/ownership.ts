/**
 * Moving ownership when a write changes fields (structured-merge-diff's `update`),
 * and the 409 an applier gets when the fields it changes belong to someone else.
 */
import { failureStatus, StatusError } from '../status.js';
import type { Comparison } from './compare.js';
import { compareStrings, formatPath, type Path } from './field-path.js';
import { ownerIdentity, type FieldOwner } from './managed-fields.js';

/** A changed field and the manager that owned it. */
export interface Conflict {
  readonly owner: FieldOwner;
  readonly path: Path;
}

/** A write's changes as the managers of `apiVersion` see them; undefined when that version is not served. */
export type ChangesIn = (apiVersion: string) => Comparison | undefined;

/**
 * Takes the fields a write added or modified away from `owners` (the managers other
 * than the writer), and forgets the fields it removed, each owner seeing the write in
 * its own apiVersion; owners left with nothing, and owners of a version no longer
 * served, are dropped, as kube drops them. An unforced write (an apply without
 * `force`) that would take a field throws the 409 Conflict kube-apiserver answers
 * instead. A field whose value did not change is not taken: its owners share it with
 * the writer.
 */
export function releaseChangedFields(owners: readonly FieldOwner[], changesIn: ChangesIn, force: boolean): FieldOwner[] {
  const seen = owners.flatMap((owner) => {
    const changes = changesIn(owner.apiVersion);
    return changes ? [{ owner, changes, changed: changes.added.union(changes.modified) }] : [];
  });
  if (!force) {
    const conflicts = seen.flatMap(({ owner, changed }) =>
      owner.fields
        .intersection(changed)
        .paths()
        .map((path) => ({ owner, path })),
    );
    if (conflicts.length > 0) throw applyConflict(conflicts);
  }
  return seen
    .map(({ owner, changes, changed }) => ({ ...owner, fields: owner.fields.difference(changed).difference(changes.removed) }))
    .filter((owner) => !owner.fields.isEmpty);
}

/**
 * The 409 Conflict of an apply, as kube-apiserver words it: one cause per field,
 * `{reason: FieldManagerConflict, message: 'conflict with "ctl" using cairn.dev/v1', field: '.spec.replicas'}`,
 * and a message listing them by manager.
 */
export function applyConflict(conflicts: readonly Conflict[]): StatusError {
  const sorted = [...conflicts].sort((a, b) => compareStrings(ownerIdentity(a.owner), ownerIdentity(b.owner)));
  const causes = sorted.map(({ owner, path }) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${describeOwner(owner)}`,
    field: formatPath(path),
  }));
  return new StatusError(failureStatus(409, 'Conflict', conflictMessage(sorted), { causes }));
}

function conflictMessage(sorted: readonly Conflict[]): string {
  if (sorted.length === 1) return `Apply failed with 1 conflict: conflict with ${describeOwner(sorted[0].owner)}: ${formatPath(sorted[0].path)}`;
  const lines: string[] = [];
  let previous: string | undefined;
  for (const { owner, path } of sorted) {
    const identity = ownerIdentity(owner);
    if (identity !== previous) lines.push(`conflicts with ${describeOwner(owner)}:`);
    previous = identity;
    lines.push(`- ${formatPath(path)}`);
  }
  return `Apply failed with ${sorted.length} conflicts: ${lines.join('\n')}`;
}

/** `"kubectl"`, `"ctl" with subresource "status"`, `"ctl" using cairn.dev/v1`: how kube names a manager in conflicts. */
function describeOwner(owner: FieldOwner): string {
  const name = JSON.stringify(owner.manager) + (owner.subresource ? ` with subresource ${JSON.stringify(owner.subresource)}` : '');
  return owner.operation === 'Update' ? `${name} using ${owner.apiVersion}` : name;
}
