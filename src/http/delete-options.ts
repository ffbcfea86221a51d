/**
 * DeleteOptions, from the request body (kubectl) or the query (`dryRun`,
 * `propagationPolicy`), checked as kube's ValidateDeleteOptions does (422 on
 * `DeleteOptions.meta.k8s.io`).
 */
import { badRequest, invalid, type FieldError } from '../machinery/errors.js';
import { isPlainObject } from '../machinery/object.js';
import type { DeleteOptions, Preconditions, PropagationPolicy } from '../registry/request-options.js';
import { decodeBody, mediaType } from './negotiation.js';
import { dryRunParam, type Query } from './query.js';

const propagationPolicies: readonly PropagationPolicy[] = ['Foreground', 'Background', 'Orphan'];

/** Decodes the DeleteOptions of a delete or deletecollection request. */
export function deleteOptions(raw: string, contentType: string | undefined, query: Query): DeleteOptions {
  // kubectl sends DeleteOptions; client-node sends Content-Type json with an empty body.
  const body = raw.trim() === '' ? {} : decodeBody(raw, mediaType(contentType), ['application/json', 'application/yaml']);
  if (!isPlainObject(body)) throw badRequest('DeleteOptions must be a JSON object');
  const policy = body.propagationPolicy ?? query.get('propagationPolicy') ?? undefined;
  const orphanText = body.orphanDependents ?? query.get('orphanDependents') ?? undefined;
  const orphanDependents = orphanText === undefined ? undefined : orphanText === true || orphanText === 'true';
  const errors: FieldError[] = [];
  if (policy !== undefined && orphanDependents !== undefined) {
    errors.push({ field: 'propagationPolicy', reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(policy)}: orphanDependents and deletionPropagation cannot be both set` });
  }
  const propagationPolicy = propagationPolicies.find((p) => p === policy);
  if (policy !== undefined && !propagationPolicy) {
    errors.push({
      field: 'propagationPolicy',
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan"`,
    });
  }
  if (errors.length) throw invalid('DeleteOptions', 'meta.k8s.io', '', errors);
  const bodyDryRun = Array.isArray(body.dryRun) ? body.dryRun.map(String) : [];
  return {
    dryRun: dryRunParam([...bodyDryRun, ...query.getAll('dryRun')]),
    preconditions: isPlainObject(body.preconditions) ? (body.preconditions as Preconditions) : undefined,
    propagationPolicy,
    orphanDependents,
  };
}
