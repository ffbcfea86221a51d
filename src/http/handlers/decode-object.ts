/** Reads the body and options of a write (create, update, patch). */
import { badRequest, type FieldError } from '../../machinery/errors.js';
import { duplicateFields } from '../../machinery/decoding/duplicate-fields.js';
import type { WriteOptions } from '../../registry/request-options.js';
import { logRequestObject } from '../filters/audit-context.js';
import { decodeBody, mediaType, writeMediaTypes } from '../request/decode-body.js';
import { protobufMediaType } from '../serializers/protobuf-serializer.js';
import { writeOptions, type WriteOptionsKind } from '../request/write-options.js';
import { readBodyBytes } from '../request/read-body.js';
import type { DecodedObject } from '../../registry/request-scope.js';
import type { ResourceContext } from './resource-context.js';

// kube names a manager after the User-Agent; a request with neither gets this.
const unknownManager = 'unknown';

/**
 * A write's raw body and options (`kind` names them in a 422, after the `leading`
 * errors); field validation needs the fields a text body repeats, which decoding loses.
 * A protobuf body repeats none that decoding keeps apart (kube's protobuf decoding is
 * never strict).
 */
export async function readWrite(
  rc: ResourceContext,
  decode: (raw: Buffer) => unknown,
  kind: WriteOptionsKind,
  leading: readonly FieldError[] = [],
): Promise<{ value: unknown; options: WriteOptions; manager: string }> {
  const options = writeOptions(rc.query, kind, leading);
  const raw = await readBodyBytes(rc.ctx.req);
  const binary = mediaType(rc.ctx.get('Content-Type')) === protobufMediaType;
  const text = binary ? '' : raw.toString('utf8');
  if (binary ? raw.length === 0 : text.trim() === '') throw badRequest('the body of the request was empty');
  const value = decode(raw);
  // As kube does, a write without a fieldManager is recorded under its User-Agent's product name.
  const manager = options.fieldManager ?? (rc.ctx.get('User-Agent').split('/')[0].slice(0, 128) || unknownManager);
  const repeated = options.fieldValidation === 'Ignore' || binary ? [] : duplicateFields(text, value);
  return { value, options: { ...options, duplicateFields: repeated }, manager };
}

/** Decodes the body of a create or update (`kind` of its options) as an object of the endpoint's kind and version, returned as the hub's. */
export async function decodeObject(
  rc: ResourceContext,
  kind: 'CreateOptions' | 'UpdateOptions',
): Promise<DecodedObject & { options: WriteOptions; manager: string }> {
  const { value, options, manager } = await readWrite(rc, (raw) => decodeBody(raw, mediaType(rc.ctx.get('Content-Type')), writeMediaTypes), kind);
  logRequestObject(rc.ctx, value);
  return { ...rc.scope.decode(value, options.fieldValidation, options.duplicateFields ?? []), options, manager };
}
