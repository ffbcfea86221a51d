/**
 * DeleteOptions, from the request body (kubectl) or the query (`dryRun`,
 * `propagationPolicy`), checked as kube's ValidateDeleteOptions does (422 on
 * `DeleteOptions.meta.k8s.io`).
 */
import { badRequest, invalid, type FieldError } from '../../machinery/errors.js';
import { isPlainObject } from '../../machinery/meta/object.js';
import { checkWireType, typeMetaFields, type WireType } from '../../machinery/decoding/wire-types.js';
import type { DeleteOptions, PropagationPolicy } from '../../registry/request-options.js';
import { decodeBody, mediaType, writeMediaTypes } from '../response/negotiation.js';
import { booleanParam, dryRunParam, signedIntegerParam, type Query } from './query.js';
import { fieldPath, invalid as invalidField, notSupported } from '../../machinery/field-errors.js';

const propagationPolicies: readonly PropagationPolicy[] = ['Foreground', 'Background', 'Orphan'];

/** metav1.DeleteOptions as Go decodes it. */
const deleteOptionsType: WireType = {
  struct: 'v1.DeleteOptions',
  fields: {
    ...typeMetaFields,
    gracePeriodSeconds: 'int64',
    preconditions: { struct: 'v1.Preconditions', fields: { uid: 'string', resourceVersion: 'string' } },
    orphanDependents: 'bool',
    propagationPolicy: 'string',
    dryRun: { list: 'string' },
    ignoreStoreReadErrorWithClusterBreakingPotential: 'bool',
  },
};

// The versions kube's parameter scheme decodes DeleteOptions from.
const deleteOptionsVersions = ['v1', 'meta.k8s.io/v1', 'meta.k8s.io/v1beta1'];

/** The body of a delete as DeleteOptions (empty when none was sent); 400 when it is not one. */
export function decodeDeleteOptions(raw: Buffer, contentType: string | undefined): Record<string, unknown> {
  // kubectl sends DeleteOptions; client-node sends Content-Type json with an empty body.
  const body = raw.toString('utf8').trim() === '' ? {} : decodeBody(raw, mediaType(contentType), writeMediaTypes);
  if (!isPlainObject(body)) throw badRequest('DeleteOptions must be a JSON object');
  checkWireType(body, deleteOptionsType, 'DeleteOptions');
  if ((body.kind ?? 'DeleteOptions') !== 'DeleteOptions' || (body.apiVersion != null && !deleteOptionsVersions.includes(body.apiVersion as string))) {
    throw badRequest(`${String(body.kind)} in version "${String(body.apiVersion)}" cannot be handled as a DeleteOptions`);
  }
  return body;
}

/** The DeleteOptions of a delete or deletecollection request, from its decoded body and its query. */
export function deleteOptions(body: Record<string, unknown>, query: Query): DeleteOptions {
  // The query's options are decoded as strictly, though only dryRun and the policy change anything.
  signedIntegerParam(query, 'gracePeriodSeconds');
  const policy = body.propagationPolicy ?? query.get('propagationPolicy') ?? undefined;
  const orphanDependents = (body.orphanDependents as boolean | null | undefined) ?? booleanParam(query, 'orphanDependents');
  const errors: FieldError[] = [];
  if (policy !== undefined && orphanDependents !== undefined) {
    errors.push(invalidField(fieldPath('propagationPolicy'), policy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  const propagationPolicy = propagationPolicies.find((p) => p === policy);
  if (policy !== undefined && !propagationPolicy) {
    errors.push(notSupported(fieldPath('propagationPolicy'), policy, propagationPolicies));
  }
  if (errors.length) throw invalid('DeleteOptions', 'meta.k8s.io', '', errors);
  const bodyDryRun = Array.isArray(body.dryRun) ? body.dryRun.map(String) : [];
  return {
    dryRun: dryRunParam([...bodyDryRun, ...query.getAll('dryRun')]),
    preconditions: isPlainObject(body.preconditions) ? body.preconditions : undefined,
    propagationPolicy,
    orphanDependents,
  };
}
