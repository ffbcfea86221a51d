/**
 * Decoded JSON values written as kube's Go code writes them inside its messages, where a
 * message quotes a whole object: a patched object (json.Marshal of a map, keys sorted) or
 * a patch (`fmt.Sprintf("%+v", patchMap)`).
 */
import { isPlainObject } from './meta/object.js';

/**
 * JSON as Go's json.Marshal writes a `map[string]interface{}`: keys sorted, and `<`, `>`,
 * `&` and the JavaScript line ends escaped.
 *
 * @example
 * sortedGoJson({ spec: { replicas: 1, bogus: '<x>' } }) // '{"spec":{"bogus":"\u003cx\u003e","replicas":1}}'
 */
export function sortedGoJson(value: unknown): string {
  const sorted = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(sorted);
    if (!isPlainObject(node)) return node;
    return Object.fromEntries(
      Object.keys(node)
        .sort()
        .map((key) => [key, sorted(node[key])]),
    );
  };
  const json = JSON.stringify(sorted(value)) ?? 'null';
  return json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A float64 as Go's `%v` writes it: the shortest digits, with an exponent from 1e+06 and below 1e-04. */
function goFloat(value: number): string {
  const exponent = Math.floor(Math.log10(Math.abs(value)));
  if (exponent >= -4 && exponent < 6) return String(value);
  const [mantissa, power] = value.toExponential().split('e');
  const sign = power.startsWith('-') ? '-' : '+';
  return `${mantissa}e${sign}${power.replace(/^[-+]/, '').padStart(2, '0')}`;
}

/**
 * A decoded JSON value as Go's `%+v` writes it (kube decodes a patch's integers as int64,
 * its other numbers as float64): `map[spec:map[replicas:1]]`, keys sorted, lists in
 * brackets, strings bare, null as `<nil>`.
 */
export function goFormat(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goFormat).join(' ')}]`;
  if (isPlainObject(value)) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${key}:${goFormat(value[key])}`);
    return `map[${entries.join(' ')}]`;
  }
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : goFloat(value);
  return typeof value === 'string' ? value : JSON.stringify(value);
}
