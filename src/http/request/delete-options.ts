/**
 * DeleteOptions, from the request body (kubectl) or the query (`dryRun`,
 * `propagationPolicy`), checked as kube's ValidateDeleteOptions does (422 on
 * `DeleteOptions.meta.k8s.io`).
 */
import { badRequest, invalid, type FieldError } from '../../machinery/errors.js';
import { isPlainObject } from '../../machinery/meta/object.js';
import { checkWireType, typeMetaFields, type WireType } from '../../machinery/decoding/wire-types.js';
import type { DeleteOptions, PropagationPolicy } from '../../registry/request-options.js';
import { decodeBody, mediaType, writeMediaTypes } from './decode-body.js';
import { booleanParam, signedIntegerParam, type Query } from './query.js';
import { fieldPath, invalid as invalidField, notSupported } from '../../machinery/field-errors.js';
import { validateDryRun } from '../../machinery/meta/options-validation.js';

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

/** The body of a delete as DeleteOptions, or undefined when none was sent; 400 when it is not one. */
export function decodeDeleteOptions(raw: Buffer, contentType: string | undefined): Record<string, unknown> | undefined {
  // kubectl sends DeleteOptions; client-node sends Content-Type json with an empty body.
  if (raw.toString('utf8').trim() === '') return undefined;
  const body = decodeBody(raw, mediaType(contentType), writeMediaTypes);
  if (!isPlainObject(body)) throw badRequest('DeleteOptions must be a JSON object');
  checkWireType(body, deleteOptionsType, 'DeleteOptions');
  if ((body.kind ?? 'DeleteOptions') !== 'DeleteOptions' || (body.apiVersion != null && !deleteOptionsVersions.includes(body.apiVersion as string))) {
    throw badRequest(`${String(body.kind)} in version "${String(body.apiVersion)}" cannot be handled as a DeleteOptions`);
  }
  return body;
}

/** DeleteOptions from the query, decoded as strictly as kube's parameter codec does (400 when malformed). */
function queryDeleteOptions(query: Query): Record<string, unknown> {
  // Decoded though nothing reads it: a malformed one is still a 400.
  signedIntegerParam(query, 'gracePeriodSeconds');
  return {
    propagationPolicy: query.get('propagationPolicy') ?? undefined,
    orphanDependents: booleanParam(query, 'orphanDependents'),
    dryRun: query.getAll('dryRun'),
  };
}

/**
 * The DeleteOptions of a delete or deletecollection: from its body when one was sent,
 * else from its query (never both, as in kube, whose handler ignores the query then),
 * checked as kube's ValidateDeleteOptions in its order.
 */
export function deleteOptions(body: Record<string, unknown> | undefined, query: Query): DeleteOptions {
  const source = body ?? queryDeleteOptions(query);
  const policy = source.propagationPolicy ?? undefined;
  const orphanDependents = (source.orphanDependents as boolean | null | undefined) ?? undefined;
  const dryRun = Array.isArray(source.dryRun) ? source.dryRun.map(String) : [];
  const errors: FieldError[] = [];
  if (policy !== undefined && orphanDependents !== undefined) {
    errors.push(invalidField(fieldPath('propagationPolicy'), policy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  const propagationPolicy = propagationPolicies.find((p) => p === policy);
  if (policy !== undefined && !propagationPolicy) {
    // kube lists "nil" too: leaving it unset.
    errors.push(notSupported(fieldPath('propagationPolicy'), policy, [...propagationPolicies, 'nil']));
  }
  errors.push(...validateDryRun(dryRun, fieldPath('dryRun')));
  if (errors.length) throw invalid('DeleteOptions', 'meta.k8s.io', '', errors);
  return {
    dryRun: dryRun.length > 0,
    preconditions: isPlainObject(source.preconditions) ? source.preconditions : undefined,
    propagationPolicy,
    orphanDependents,
  };
}
