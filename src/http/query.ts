/**
 * Decoding of the query parameters kube's API takes.
 */
import { badRequest } from '../machinery/errors.js';
import { parseFieldSelector, type FieldSelector } from '../machinery/field-selector.js';
import { parseLabelSelector, type LabelSelector } from '../machinery/label-selector.js';
import { SelectorParseError } from '../machinery/selector-parse-error.js';
import type { FieldValidation, WriteOptions } from '../registry/request-options.js';

/** The query of a request, as URLSearchParams. */
export type Query = URLSearchParams;

/** `watch=true|1`. */
export function isWatch(query: Query): boolean {
  const value = query.get('watch');
  return value === 'true' || value === '1';
}

/** Parses `labelSelector`; 400 naming the problem. */
export function labelSelectorParam(query: Query): LabelSelector | undefined {
  const text = query.get('labelSelector');
  if (!text) return undefined;
  try {
    return parseLabelSelector(text);
  } catch (error) {
    if (error instanceof SelectorParseError) throw badRequest(`unable to parse labelSelector: ${error.message}`);
    throw error;
  }
}

/** Parses `fieldSelector` and checks each field is selectable; 400 naming the problem. */
export function fieldSelectorParam(query: Query, selectable: readonly string[]): FieldSelector | undefined {
  const text = query.get('fieldSelector');
  if (!text) return undefined;
  let selector: FieldSelector;
  try {
    selector = parseFieldSelector(text);
  } catch (error) {
    if (error instanceof SelectorParseError) throw badRequest(`unable to parse fieldSelector: ${error.message}`);
    throw error;
  }
  for (const requirement of selector) {
    if (!selectable.includes(requirement.field)) {
      throw badRequest(`field label not supported: ${requirement.field}`);
    }
  }
  return selector;
}

/** Parses a non-negative integer parameter; 400 when malformed. */
export function integerParam(query: Query, name: string): number | undefined {
  const text = query.get(name);
  if (text === null || text === '') return undefined;
  if (!/^\d+$/.test(text)) throw badRequest(`invalid value for ${name}: ${text}`);
  return Number(text);
}

/** Parses a signed integer parameter, for options whose validation reports negative values (422); 400 when malformed. */
export function signedIntegerParam(query: Query, name: string): number | undefined {
  const text = query.get(name);
  if (text === null || text === '') return undefined;
  if (!/^-?\d+$/.test(text)) throw badRequest(`invalid value for ${name}: ${text}`);
  return Number(text);
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

/** Checks a resourceVersion parameter is a non-negative integer (or unset). */
export function resourceVersionParam(query: Query): string {
  const rv = query.get('resourceVersion') ?? '';
  if (rv !== '' && !/^\d+$/.test(rv)) throw badRequest(`invalid resource version: ${rv}`);
  return rv;
}

/** `dryRun=All` (the only value kube accepts). */
export function dryRunParam(values: readonly string[]): boolean {
  for (const value of values) {
    if (value !== 'All') throw badRequest(`Invalid dryRun value: ${value}: supported values: "All"`);
  }
  return values.length > 0;
}

/** The options of create, update and patch. */
export function writeOptions(query: Query): WriteOptions {
  const validation = query.get('fieldValidation') ?? '';
  let fieldValidation: FieldValidation;
  switch (validation.toLowerCase()) {
    case '':
    case 'warn':
      fieldValidation = 'Warn';
      break;
    case 'strict':
      fieldValidation = 'Strict';
      break;
    case 'ignore':
      fieldValidation = 'Ignore';
      break;
    default:
      throw badRequest(`fieldValidation: Unsupported value: "${validation}": supported values: "Ignore", "Strict", "Warn"`);
  }
  const fieldManager = query.get('fieldManager') ?? undefined;
  if (fieldManager !== undefined && fieldManager.length > 128) throw badRequest('fieldManager: Too long: may not be more than 128 bytes');
  return { dryRun: dryRunParam(query.getAll('dryRun')), fieldManager, fieldValidation };
}
