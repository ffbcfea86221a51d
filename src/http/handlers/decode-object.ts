/** Reads the object a create or update carries. */
import { badRequest } from '../../machinery/errors.js';
import { isPlainObject, type KubeObject } from '../../machinery/object.js';
import { decodeBody, mediaType, writeMediaTypes } from '../negotiation.js';
import { readBody } from '../read-body.js';
import type { ResourceContext } from './resource-context.js';

/** Decodes the body as one JSON or YAML object; 400 when it is not one. */
export async function decodeObject(rc: ResourceContext): Promise<KubeObject> {
  const raw = await readBody(rc.ctx.req);
  if (raw.trim() === '') throw badRequest('the body of the request was empty');
  const value = decodeBody(raw, mediaType(rc.ctx.get('Content-Type')), writeMediaTypes);
  if (!isPlainObject(value)) throw badRequest('the body of the request must be a JSON object');
  return value as KubeObject;
}
