/**
 * Paths into an object as structured-merge-diff names them, the vocabulary of
 * `managedFields`. A path is a list of elements, each one of:
 *
 * - `f:<name>`: a field of an object, or a key of a map;
 * - `k:<json>`: the item of a list-map whose key fields have these values (`k:{"name":"fetch"}`);
 * - `v:<json>`: the item of a set with this value (`v:"example.com/finalizer"`);
 * - `i:<index>`: a position in a list (kube writes these for no list Cairn serves).
 *
 * Elements are kept in their serialized form, made canonical (key fields sorted, JSON
 * encoded as Go encodes it), so equal elements are equal strings and a fieldsV1
 * document written by kube-apiserver reads back to the same elements.
 */
import { isPlainObject } from '../meta/object.js';

/** One step of a path, serialized: `f:spec`, `k:{"name":"fetch"}`, `v:"a"`, `i:0`. */
export type PathElement = string;

/** A path from the root of an object. */
export type Path = readonly PathElement[];

/** The element of a field of an object or a key of a map. */
export function fieldElement(name: string): PathElement {
  return `f:${name}`;
}

/** The name in a field element: `nameOfField('f:spec')` is `spec`. */
export function nameOfField(element: PathElement): string {
  return element.slice('f:'.length);
}

/** The element of the list-map item whose key fields have these values. */
export function keyElement(keys: Readonly<Record<string, unknown>>): PathElement {
  return `k:${goJson(keys)}`;
}

/** The element of the set item with this value. */
export function valueElement(value: unknown): PathElement {
  return `v:${goJson(value)}`;
}

/** The element of a position in a list. */
export function indexElement(index: number): PathElement {
  return `i:${index}`;
}

/** The path through these fields: `fieldPath('spec', 'replicas')` is `.spec.replicas`. */
export function fieldPath(...names: string[]): Path {
  return names.map(fieldElement);
}

/**
 * Reads a serialized element (a key of a fieldsV1 document) into its canonical form;
 * undefined for an element kind this version does not know, which kube skips too.
 * Throws on a malformed element.
 */
export function canonicalElement(text: string): PathElement | undefined {
  if (text.length < 2) throw new Error(`key must be 2 characters long: ${text}`);
  if (text[1] !== ':') throw new Error(`missing colon: ${text}`);
  const body = text.slice(2);
  switch (text[0]) {
    case 'f':
      return text;
    case 'k': {
      const keys: unknown = JSON.parse(body);
      if (!isPlainObject(keys)) throw new Error(`key element is not a JSON object: ${text}`);
      return keyElement(keys);
    }
    case 'v':
      return valueElement(JSON.parse(body));
    case 'i':
      if (!/^-?\d+$/.test(body)) throw new Error(`invalid index: ${text}`);
      return indexElement(Number(body));
    default:
      return undefined;
  }
}

/** Orders elements as structured-merge-diff does (fields, then keys, values, indexes), which fixes the order of fieldsV1. */
export function compareElements(a: PathElement, b: PathElement): number {
  const kinds = kindOrder(a) - kindOrder(b);
  if (kinds !== 0) return kinds;
  const left = a.slice(2);
  const right = b.slice(2);
  switch (a[0]) {
    case 'f':
      return compareStrings(left, right);
    case 'k':
      return compareKeys(JSON.parse(left) as Record<string, unknown>, JSON.parse(right) as Record<string, unknown>);
    case 'v':
      return compareValues(JSON.parse(left), JSON.parse(right));
    default:
      return Number(left) - Number(right);
  }
}

/** Prints a path as kube does in conflict messages: `.spec.steps[name="fetch"].image`. */
export function formatPath(path: Path): string {
  return path.map(formatElement).join('');
}

function formatElement(element: PathElement): string {
  const body = element.slice(2);
  switch (element[0]) {
    case 'f':
      return `.${body}`;
    case 'k': {
      const keys = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.entries(keys)
        .map(([name, value]) => `${name}=${formatValue(value)}`)
        .join(',')}]`;
    }
    case 'v':
      return `[=${formatValue(JSON.parse(body))}]`;
    default:
      return `[${body}]`;
  }
}

// Go prints strings quoted and other scalars bare (`value.ToString`).
function formatValue(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'object') return JSON.stringify(value);
  return typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' ? value.toString() : 'undefined';
}

function kindOrder(element: PathElement): number {
  return 'fkvi'.indexOf(element[0]);
}

/** Orders strings by UTF-16 code unit, as kube sorts names and paths. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareKeys(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const left = Object.entries(a).sort(([x], [y]) => compareStrings(x, y));
  const right = Object.entries(b).sort(([x], [y]) => compareStrings(x, y));
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const byName = compareStrings(left[i][0], right[i][0]);
    if (byName !== 0) return byName;
    const byValue = compareValues(left[i][1], right[i][1]);
    if (byValue !== 0) return byValue;
  }
  return left.length - right.length;
}

// structured-merge-diff's total order of values: numbers, strings, booleans, lists, maps, null.
function compareValues(a: unknown, b: unknown): number {
  const ranks = valueRank(a) - valueRank(b);
  if (ranks !== 0) return ranks;
  if (typeof a === 'number') return Math.sign(a - (b as number));
  if (typeof a === 'string') return compareStrings(a, b as string);
  if (typeof a === 'boolean') return Number(a) - Number(b);
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareValues(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  return compareStrings(goJson(a), goJson(b));
}

function valueRank(value: unknown): number {
  if (typeof value === 'number') return 0;
  if (typeof value === 'string') return 1;
  if (typeof value === 'boolean') return 2;
  if (Array.isArray(value)) return 3;
  return value === null ? 5 : 4;
}

/** JSON as Go's encoding/json writes it: map keys sorted, `<`, `>`, `&`, U+2028, U+2029, `\b` and `\f` escaped. */
function goJson(value: unknown): string {
  return JSON.stringify(sortedKeys(value)).replace(/[<>&\u2028\u2029]|\\[\\bf]/g, (match) => goEscapes[match] ?? match);
}

const goEscapes: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
  '\\b': '\\u0008',
  '\\f': '\\u000c',
};

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isPlainObject(value)) return value;
  const names = Object.keys(value).sort(compareStrings);
  return Object.fromEntries(names.map((name) => [name, sortedKeys(value[name])]));
}
