/**
 * Server-side apply (`PATCH` with `application/apply-patch+yaml`) on any kind, as
 * kube-apiserver's field manager does it: merge the configuration into the live
 * object, drop what the applier stopped applying, and record its ownership, or answer
 * 409 when it would change fields other managers own.
 */
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import { badRequest } from '../errors.js';
import { deepCopy, type KubeObject } from '../meta/object.js';
import type { StatusError } from '../status.js';
import { capUpdateOwners } from './cap.js';
import type { Comparison } from './compare.js';
import { formatPath } from './field-path.js';
import { fieldSetOf } from './field-set-of.js';
import { FieldSet } from './field-set.js';
import { decodeManagedFields, encodeManagedFields, ownerIdentity, strippedFields, withManagedFields, type OwnershipContext } from './managed-fields.js';
import { mergeApplied } from './merge.js';
import { ObjectVersions } from './object-versions.js';
import { releaseChangedFields } from './ownership.js';
import { pruneOwnership } from './prune-ownership.js';
import { removeDisowned } from './prune.js';
import type { Problem } from './schema-shape.js';

/** One server-side apply. */
export interface ApplyRequest extends OwnershipContext {
  /** The stored object with its managedFields, in `apiVersion`; undefined when the apply creates it. */
  readonly live: KubeObject | undefined;
  /** The applied configuration, the decoded request body. */
  readonly applied: KubeObject;
  /** The `force` query parameter: take the conflicting fields instead of answering 409. */
  readonly force: boolean;
}

/** The outcome of an apply. */
export interface ApplyResult {
  /** The object to store, carrying `managedFields`; a copy, sharing nothing with the inputs. */
  readonly object: KubeObject;
  /** The new metadata.managedFields; empty when nobody owns anything. */
  readonly managedFields: readonly ManagedFieldsEntry[];
}

/**
 * Applies `applied` as `manager`'s whole intent for the object:
 *
 * 1. merges it into the live object (list-maps by key, sets by value, atomic lists and
 *    maps replaced whole), its values winning;
 * 2. removes the fields, list items and map entries `manager` applied last time, no
 *    longer applies, and nobody else owns;
 * 3. compares the result with the live object: a changed field owned by another
 *    manager is a conflict (409 Conflict unless `force`, which takes it from them); a
 *    field set to the value it has is shared;
 * 4. records the fields of `applied` as `manager`'s Apply entry, time `now`, in
 *    `apiVersion` whichever version it applied in before.
 *
 * With a `converter`, steps 2 and 3 read every manager's fields (the applier's
 * previous ones too) in the apiVersion they were written in, as kube does; a manager
 * of a version no longer served is dropped.
 *
 * Throws 400 BadRequest for a configuration kube refuses: one carrying
 * managedFields, of another apiVersion, or with list items that cannot be identified.
 *
 * @example
 * const { object } = applyPatch({ live, applied: body, manager: 'kubectl', force: false,
 *   schema: pipelineSchema, resolve, apiVersion: 'cairn.dev/v1', now: '2024-05-01T10:00:00Z' });
 */
export function applyPatch(request: ApplyRequest): ApplyResult {
  const { applied, schema, resolve, apiVersion } = request;
  if (applied.metadata?.managedFields != null) throw badRequest('metadata.managedFields must be nil');
  if (applied.apiVersion !== apiVersion) {
    throw badRequest(`Incorrect version specified in apply patch. Specified patch version: ${applied.apiVersion ?? ''}, expected: ${apiVersion}`);
  }
  const problems: Problem[] = [];
  const appliedFields = fieldSetOf(applied, schema, resolve, problems);
  if (problems.length > 0) throw untypedConfiguration(applied, problems);

  const resetFields = request.resetFields ?? FieldSet.empty;
  const fields = appliedFields.difference(strippedFields).recursiveDifference(resetFields);
  const self = { manager: request.manager, operation: 'Apply', apiVersion, subresource: request.subresource } as const;
  const owners = decodeManagedFields(request.live?.metadata?.managedFields ?? []) ?? [];
  const previous = owners.find((owner) => ownerIdentity(owner) === ownerIdentity(self));
  const others = owners.filter((owner) => owner !== previous);

  const live: KubeObject = request.live ? withManagedFields(request.live, []) : {};
  const versions = new ObjectVersions(request);
  let object = mergeApplied(live, applied, schema, resolve) as KubeObject;
  const ownership = previous && pruneOwnership(object, previous, [...others, { apiVersion, fields }], versions, schema, resolve);
  if (ownership) object = removeDisowned(object, schema, resolve, ownership) as KubeObject;
  const changesIn = versions.changes(live, object);
  // The request's own version is always there to compare in.
  const changes = changesIn(apiVersion)!;
  // kube's managedFieldsUpdater: an apply that changes nothing (not the object, not
  // what the managers own, not the version of the applier's entry, and drops no owner
  // of a version no longer served) keeps the live object and its entry's time, so
  // nothing is written.
  const ownsAsBefore = previous && versions.isRequestVersion(previous.apiVersion) && fields.equals(previous.fields);
  if (request.live && ownsAsBefore && isUnchanged(changes) && others.every((owner) => changesIn(owner.apiVersion))) {
    const object = deepCopy(request.live);
    return { object, managedFields: object.metadata?.managedFields ?? [] };
  }
  const managedFields = encodeManagedFields(
    capUpdateOwners([...releaseChangedFields(others, changesIn, request.force), { ...self, time: request.now, fields }]),
  );
  return { object: withManagedFields(deepCopy(object), managedFields), managedFields };
}

function isUnchanged({ added, modified, removed }: Comparison): boolean {
  return added.isEmpty && modified.isEmpty && removed.isEmpty;
}

/** The 400 kube answers for a configuration it cannot read through the schema. */
function untypedConfiguration(applied: KubeObject, problems: readonly Problem[]): StatusError {
  const { namespace = '', name = '' } = applied.metadata ?? {};
  const details = problems.map(({ path, message }) => `${formatPath(path)}: ${message}`);
  const detail = details.length === 1 ? details[0] : ['errors:', ...details].join('\n  ');
  return badRequest(`failed to create typed patch object (${namespace}/${name}; ${applied.apiVersion}, Kind=${applied.kind ?? ''}): ${detail}`);
}
