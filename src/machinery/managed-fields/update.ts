/**
 * Ownership after a create, update or non-apply patch, as kube-apiserver's field
 * manager records it: the writer owns what it changed.
 */
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import { isPlainObject, type KubeObject } from '../meta/object.js';
import { capUpdateOwners } from './cap.js';
import { FieldSet } from './field-set.js';
import {
  decodeManagedFields,
  encodeManagedFields,
  ownerIdentity,
  strippedFields,
  withManagedFields,
  type FieldOwner,
  type OwnershipContext,
} from './managed-fields.js';
import { ObjectVersions } from './object-versions.js';
import { releaseChangedFields } from './ownership.js';

/** One write that is not an apply. */
export interface UpdateRequest extends OwnershipContext {
  /** The stored object with its managedFields; undefined on create. */
  readonly old: KubeObject | undefined;
  /** The object about to be stored, with the managedFields the client sent (if any). */
  readonly updated: KubeObject;
}

/**
 * The managedFields of `updated`: the fields the write added or modified become
 * `manager`'s (one Update entry per manager, apiVersion and subresource, merged with
 * its earlier one, time `now`) and leave every other manager; the fields it removed
 * leave everyone; managers left with nothing are dropped. Every other manager sees
 * the write in the apiVersion of its entry, through `converter`. Store the result
 * with `withManagedFields(updated, entries)`.
 *
 * The starting ownership is, as in kube: the client's managedFields when it sent valid,
 * non-empty ones to the main resource (so they can be edited), none when it sent `[]`
 * or `[{}]` (a reset), and the stored ones otherwise.
 */
export function updateManagedFields(request: UpdateRequest): readonly ManagedFieldsEntry[] {
  const { old, updated, apiVersion } = request;
  const before = old ? withManagedFields(old, []) : {};
  const after = withManagedFields(updated, []);
  const changesIn = new ObjectVersions(request).changes(before, after);
  // The request's own version is always there to compare in.
  const changes = changesIn(apiVersion)!;
  const owners = releaseChangedFields(startingOwners(request), changesIn, true);
  const taken = changes.added.union(changes.modified).difference(strippedFields);
  if (taken.isEmpty) return encodeManagedFields(capUpdateOwners(owners));
  const self = { manager: request.manager, operation: 'Update', apiVersion, subresource: request.subresource } as const;
  const previous = owners.find((owner) => ownerIdentity(owner) === ownerIdentity(self));
  const fields = taken.union(previous?.fields ?? FieldSet.empty);
  return encodeManagedFields(capUpdateOwners([...owners.filter((owner) => owner !== previous), { ...self, time: request.now, fields }]));
}

/** kube's `decodeLiveOrNew`: which managedFields a write starts from. */
function startingOwners({ old, updated, subresource }: UpdateRequest): FieldOwner[] {
  const stored = decodeManagedFields(old?.metadata?.managedFields ?? []) ?? [];
  if (subresource) return stored;
  const sent: unknown = updated.metadata?.managedFields;
  if (isReset(sent)) return [];
  const decoded = decodeManagedFields(sent);
  return decoded && decoded.length > 0 ? decoded : stored;
}

function isReset(sent: unknown): boolean {
  if (!Array.isArray(sent)) return false;
  return sent.length === 0 || (sent.length === 1 && isPlainObject(sent[0]) && Object.keys(sent[0]).length === 0);
}
