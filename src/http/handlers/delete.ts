/** DELETE of one object, with optional DeleteOptions in the body. */
import { badRequest } from '../../machinery/errors.js';
import { isPlainObject } from '../../machinery/object.js';
import type { Preconditions } from '../../registry/request-options.js';
import { decodeBody, mediaType } from '../negotiation.js';
import { dryRunParam } from '../query.js';
import { readBody } from '../read-body.js';
import { namespaceOf, respondObject, type ResourceContext } from './resource-context.js';

const propagationPolicies = ['Orphan', 'Background', 'Foreground'];

/** Answers `delete` with 200 and the object's last state. */
export async function deleteHandler(rc: ResourceContext): Promise<void> {
  const raw = await readBody(rc.ctx.req);
  // kubectl sends DeleteOptions; client-node sends Content-Type json with an empty body.
  const options = raw.trim() === '' ? {} : decodeBody(raw, mediaType(rc.ctx.get('Content-Type')), ['application/json', 'application/yaml']);
  if (!isPlainObject(options)) throw badRequest('DeleteOptions must be a JSON object');
  const policy = options.propagationPolicy ?? rc.query.get('propagationPolicy') ?? undefined;
  if (policy !== undefined && !propagationPolicies.includes(String(policy))) {
    throw badRequest(`propagationPolicy: Unsupported value: "${String(policy)}": supported values: "Foreground", "Background", "Orphan"`);
  }
  const bodyDryRun = Array.isArray(options.dryRun) ? options.dryRun.map(String) : [];
  const dryRun = dryRunParam([...bodyDryRun, ...rc.query.getAll('dryRun')]);
  const preconditions = isPlainObject(options.preconditions) ? (options.preconditions as Preconditions) : undefined;
  const object = await rc.store.delete({ namespace: namespaceOf(rc), name: rc.request.name! }, { dryRun, preconditions });
  respondObject(rc, 200, object);
}
