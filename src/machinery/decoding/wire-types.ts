/**
 * The Go types of kube's option and subresource bodies (DeleteOptions, Scale, a log
 * append), checked the way Go's JSON decoder checks them: a field of the wrong type
 * is a 400, never ignored; null is the zero value; fields it does not know are
 * ignored, as kube's non-strict decoding of these bodies ignores them.
 */
import { badRequest } from '../errors.js';
import { isPlainObject } from '../meta/object.js';

/** The type of one field on the wire. */
export type WireType =
  | 'string'
  | 'bool'
  | 'int32'
  | 'int64'
  | 'object'
  | { readonly list: WireType }
  | { readonly struct: string; readonly fields: Readonly<Record<string, WireType>> };

const intRanges = { int32: [-(2 ** 31), 2 ** 31 - 1], int64: [-(2 ** 63), 2 ** 63] } as const;

/** How Go's decoder names a JSON value in its errors. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return `number ${value}`;
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

function goType(type: WireType): string {
  if (typeof type === 'string') return type === 'object' ? 'map[string]interface {}' : type;
  return 'list' in type ? `[]${goType(type.list)}` : type.struct;
}

function fits(value: unknown, type: WireType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'bool':
      return typeof value === 'boolean';
    case 'int32':
    case 'int64': {
      const [min, max] = intRanges[type];
      return typeof value === 'number' && Number.isInteger(value) && value >= min && value < max + (type === 'int32' ? 1 : 0);
    }
    case 'object':
      return isPlainObject(value);
    default:
      return 'list' in type ? Array.isArray(value) : isPlainObject(value);
  }
}

/** A struct's name as Go's decoding errors print the struct a field is in: without its package. */
const structName = (struct: string): string => struct.split('.').at(-1)!;

/**
 * What Go's decoder says of `value` as a `type`, the field at `path` of the Go struct
 * `owner` (`json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of
 * type int32`: the innermost struct, the whole path); undefined when it fits. Recurses as
 * deep as the type, not the value.
 */
export function wireTypeError(value: unknown, type: WireType, owner: string, path = ''): string | undefined {
  if (value === null) return undefined;
  if (!fits(value, type)) {
    const where = path ? `Go struct field ${owner}.${path}` : `Go value of type ${owner}`;
    return `json: cannot unmarshal ${jsonKind(value)} into ${where} of type ${goType(type)}`;
  }
  if (typeof type === 'string') return undefined;
  if ('list' in type) {
    for (const item of value as unknown[]) {
      const error = wireTypeError(item, type.list, owner, path);
      if (error !== undefined) return error;
    }
    return undefined;
  }
  const record = value as Record<string, unknown>;
  // Below the top, the fields are named as those of the struct they are in.
  const fieldOwner = path ? structName(type.struct) : owner;
  for (const [field, fieldType] of Object.entries(type.fields)) {
    if (!Object.hasOwn(record, field)) continue;
    const error = wireTypeError(record[field], fieldType, fieldOwner, path ? `${path}.${field}` : field);
    if (error !== undefined) return error;
  }
  return undefined;
}

/**
 * Checks `value` against `type`, as a field at `path` of the Go struct `owner`; throws
 * kube's 400 with {@link wireTypeError}'s message
 * (`json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64`).
 */
export function checkWireType(value: unknown, type: WireType, owner: string, path = ''): void {
  const error = wireTypeError(value, type, owner, path);
  if (error !== undefined) throw badRequest(error);
}

/** The fields every object body has. */
export const typeMetaFields: Readonly<Record<string, WireType>> = { kind: 'string', apiVersion: 'string' };
