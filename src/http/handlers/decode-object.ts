/** Reads the body and options of a write (create, update, patch). */
import { badRequest } from '../../machinery/errors.js';
import { duplicateFields } from '../../machinery/decoding/duplicate-fields.js';
import type { WriteOptions } from '../../registry/request-options.js';
import { logRequestObject } from '../filters/audit-context.js';
import { decodeBody, mediaType, writeMediaTypes } from '../response/negotiation.js';
import { writeOptions } from '../request/query.js';
import { readBody } from '../request/read-body.js';
import type { DecodedObject } from '../request-scope.js';
import type { ResourceContext } from './resource-context.js';

// kube names a manager after the User-Agent; a request with neither gets this.
const unknownManager = 'unknown';

/** A write's raw body and options; field validation needs the fields the body repeats, which decoding loses. */
export async function readWrite(rc: ResourceContext, decode: (raw: string) => unknown): Promise<{ value: unknown; options: WriteOptions; manager: string }> {
  const options = writeOptions(rc.query);
  const raw = await readBody(rc.ctx.req);
  if (raw.trim() === '') throw badRequest('the body of the request was empty');
  const value = decode(raw);
  // As kube does, a write without a fieldManager is recorded under its User-Agent's product name.
  const manager = options.fieldManager ?? (rc.ctx.get('User-Agent').split('/')[0].slice(0, 128) || unknownManager);
  return { value, options: { ...options, duplicateFields: options.fieldValidation === 'Ignore' ? [] : duplicateFields(raw, value) }, manager };
}

/** Decodes the body of a create or update as an object of the endpoint's kind and version. */
export async function decodeObject(rc: ResourceContext): Promise<DecodedObject & { options: WriteOptions; manager: string }> {
  const { value, options, manager } = await readWrite(rc, (raw) => decodeBody(raw, mediaType(rc.ctx.get('Content-Type')), writeMediaTypes));
  logRequestObject(rc.ctx, value);
  return { ...rc.scope.decode(value, options.fieldValidation, options.duplicateFields ?? []), options, manager };
}
