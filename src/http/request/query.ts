/**
 * Decoding of the query parameters kube's API takes.
 */
import { badRequest, fieldErrorsText } from '../../machinery/errors.js';
import type { IncludeObject } from '../../machinery/types/table.js';
import { fieldPath, goQuote, invalid as invalidField } from '../../machinery/field-errors.js';
import { parseFieldSelector, type FieldSelector } from '../../machinery/selectors/field-selector.js';
import { parseLabelSelector, type LabelSelector } from '../../machinery/selectors/label-selector.js';
import { SelectorParseError } from '../../machinery/selectors/selector-parse-error.js';

/** The query of a request, as URLSearchParams. */
export type Query = URLSearchParams;

/** `watch=true|1`. */
export function isWatch(query: Query): boolean {
  const value = query.get('watch');
  return value === 'true' || value === '1';
}

/** Parses `labelSelector`; 400 with the parser's message, as kube's parameter decoding answers it. */
export function labelSelectorParam(query: Query): LabelSelector | undefined {
  const text = query.get('labelSelector');
  if (!text) return undefined;
  try {
    return parseLabelSelector(text);
  } catch (error) {
    if (error instanceof SelectorParseError) throw badRequest(error.message);
    throw error;
  }
}

/**
 * Parses `fieldSelector`, converting each field to the storage version's label
 * (`fieldLabel`, undefined for a field that cannot be selected); 400 with the parser's message.
 */
export function fieldSelectorParam(query: Query, fieldLabel: (label: string) => string | undefined): FieldSelector | undefined {
  const text = query.get('fieldSelector');
  if (!text) return undefined;
  let selector: FieldSelector;
  try {
    selector = parseFieldSelector(text);
  } catch (error) {
    if (error instanceof SelectorParseError) throw badRequest(error.message);
    throw error;
  }
  return selector.map((requirement) => {
    const field = fieldLabel(requirement.field);
    if (field === undefined) throw badRequest(`field label not supported: ${requirement.field}`);
    return { ...requirement, field };
  });
}

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;
const uint64Max = 2n ** 64n - 1n;

/** Go's `strconv.NumError` text, which kube's 400 for a malformed number is: `strconv.ParseInt: parsing "abc": invalid syntax`. */
function numberError(func: 'ParseInt' | 'ParseUint', text: string, outOfRange: boolean): string {
  return `strconv.${func}: parsing ${goQuote(text)}: ${outOfRange ? 'value out of range' : 'invalid syntax'}`;
}

/**
 * Parses an int64 parameter as kube's query decoding does (Go's strconv.ParseInt), with its
 * error as the 400's message. Values past JavaScript's safe integers are clamped to it, which
 * no limit, count or duration tells apart from int64's end.
 */
function int64Param(query: Query, name: string): number | undefined {
  const text = query.get(name);
  if (text === null || text === '') return undefined;
  if (!/^[+-]?\d+$/.test(text)) throw badRequest(numberError('ParseInt', text, false));
  const value = BigInt(text);
  if (value < int64Min || value > int64Max) throw badRequest(numberError('ParseInt', text, true));
  const safe = BigInt(Number.MAX_SAFE_INTEGER);
  return Number(value > safe ? safe : value < -safe ? -safe : value);
}

/** Parses a non-negative int64 parameter; 400 when malformed, out of range or negative. */
export function integerParam(query: Query, name: string): number | undefined {
  const value = int64Param(query, name);
  if (value !== undefined && value < 0) throw badRequest(`invalid value for ${name}: ${query.get(name)}`);
  return value;
}

/** Parses a signed int64 parameter, for options whose validation reports negative values (422); 400 when malformed. */
export function signedIntegerParam(query: Query, name: string): number | undefined {
  return int64Param(query, name);
}

/** Parses a boolean parameter (`true`/`1`, `false`/`0`); 400 when malformed. */
export function booleanParam(query: Query, name: string): boolean | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw badRequest(`invalid value for ${name}: ${value}`);
}

// RFC 3339 as kube's metav1.Time reads it: a date, a time with optional fraction, and Z or an offset.
const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Parses an RFC 3339 time parameter; 400 when malformed. */
export function timeParam(query: Query, name: string): Date | undefined {
  const text = query.get(name);
  if (text === null || text === '') return undefined;
  const time = rfc3339.test(text) ? new Date(text) : undefined;
  if (!time || Number.isNaN(time.getTime())) throw badRequest(`invalid value for ${name}: ${text}: not an RFC 3339 time`);
  return time;
}

/**
 * Checks a resourceVersion parameter is a non-negative integer (or unset); 400 worded as
 * kube's storage words it (`invalid resource version: resourceVersion: Invalid value: …`).
 */
export function resourceVersionParam(query: Query): string {
  const rv = query.get('resourceVersion') ?? '';
  if (rv === '') return rv;
  const digits = /^\d+$/.test(rv);
  // kube parses it as a uint64; Cairn's resourceVersions are int64, and no larger one can be current.
  const problem = !digits || BigInt(rv) > uint64Max ? numberError('ParseUint', rv, digits) : BigInt(rv) > int64Max ? `must be at most ${int64Max}` : undefined;
  if (problem !== undefined) throw badRequest(`invalid resource version: ${fieldErrorsText([invalidField(fieldPath('resourceVersion'), rv, problem)])}`);
  return rv;
}

const includeObjectValues: readonly IncludeObject[] = ['Metadata', 'None', 'Object'];

/** Parses `includeObject` (Table rows' objects); Metadata by default. */
export function includeObjectParam(query: Query): IncludeObject {
  const value = query.get('includeObject') ?? '';
  if (value === '') return 'Metadata';
  const found = includeObjectValues.find((v) => v === value);
  if (!found) throw badRequest(`includeObject: Unsupported value: "${value}": supported values: "Metadata", "None", "Object"`);
  return found;
}
