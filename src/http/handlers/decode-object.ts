/** Reads the body and options of a write (create, update, patch). */
import { badRequest } from '../../machinery/errors.js';
import { duplicateFields } from '../../machinery/duplicate-fields.js';
import { isPlainObject, type KubeObject } from '../../machinery/object.js';
import type { WriteOptions } from '../../registry/request-options.js';
import { decodeBody, mediaType, writeMediaTypes } from '../negotiation.js';
import { writeOptions } from '../query.js';
import { readBody } from '../read-body.js';
import type { ResourceContext } from './resource-context.js';

/** A write's raw body and options; field validation needs the fields the body repeats, which decoding loses. */
export async function readWrite(rc: ResourceContext, decode: (raw: string) => unknown): Promise<{ value: unknown; options: WriteOptions }> {
  const options = writeOptions(rc.query);
  const raw = await readBody(rc.ctx.req);
  if (raw.trim() === '') throw badRequest('the body of the request was empty');
  const value = decode(raw);
  return {
    value,
    options: {
      ...options,
      // As kube does, a write without a fieldManager is recorded under its User-Agent's product name.
      fieldManager: options.fieldManager ?? (rc.ctx.get('User-Agent').split('/')[0]!.slice(0, 128) || undefined),
      duplicateFields: options.fieldValidation === 'Ignore' ? [] : duplicateFields(raw, value),
    },
  };
}

/** Decodes the body of a create or update as one JSON or YAML object; 400 when it is not one. */
export async function decodeObject(rc: ResourceContext): Promise<{ body: KubeObject; options: WriteOptions }> {
  const { value, options } = await readWrite(rc, (raw) => decodeBody(raw, mediaType(rc.ctx.get('Content-Type')), writeMediaTypes));
  if (!isPlainObject(value)) throw badRequest('the body of the request must be a JSON object');
  return { body: value as KubeObject, options };
}
