/**
 * How text that PostgreSQL cannot hold is stored: U+0000 is valid in JSON and in
 * Kubernetes strings, but neither `jsonb` nor `text` accepts it. U+0001 serves as an
 * escape: U+0000 is stored as U+0001 "0" and U+0001 itself as U+0001 "1", so every
 * string round-trips and strings without either character are stored unchanged
 * (labels, names and field values never hold them, so selectors and indexes work on
 * the stored form as they did).
 */

const escape = '\u0001';

/** A string as a `text` column stores it. */
export function encodeText(value: string): string {
  // eslint-disable-next-line no-control-regex -- these control characters are the point
  return /[\u0000\u0001]/.test(value) ? value.replace(/[\u0000\u0001]/g, (c) => (c === '\u0000' ? `${escape}0` : `${escape}1`)) : value;
}

/** A `text` column's value as it was written. */
export function decodeText(stored: string): string {
  // eslint-disable-next-line no-control-regex -- the escape is a control character
  return stored.includes(escape) ? stored.replace(/\u0001([01])/g, (_, c: string) => (c === '0' ? '\u0000' : escape)) : stored;
}

// In JSON text (JSON.stringify's, and PostgreSQL's output of jsonb) both characters
// appear as lowercase \u escapes; an escaped backslash is matched first, so a literal
// backslash followed by "u0000" is never taken for one.
const jsonEscapesToStore = /\\(\\|u000[01])/g;
const jsonEscapesToRead = /\\(\\|u0001[01])/g;

/** A value as JSON text a `jsonb` column accepts. */
export function encodeJsonb(value: unknown): string {
  const json = JSON.stringify(value);
  if (!json.includes('\\u000')) return json;
  return json.replace(jsonEscapesToStore, (match, escaped: string) => (escaped === 'u0000' ? '\\u00010' : escaped === 'u0001' ? '\\u00011' : match));
}

/** The value of `jsonb` text as PostgreSQL prints it. */
export function decodeJsonb(text: string): unknown {
  return JSON.parse(decodeJsonbText(text));
}

/** `jsonb` text as PostgreSQL prints it, made the JSON text of the value as written, without parsing it. */
export function decodeJsonbText(text: string): string {
  if (!text.includes('\\u0001')) return text;
  return text.replace(jsonEscapesToRead, (match, escaped: string) => (escaped === 'u00010' ? '\\u0000' : escaped === 'u00011' ? '\\u0001' : match));
}

/** The PostgreSQL type oid of `jsonb`, whose parser both backends replace with {@link decodeJsonb}. */
export const jsonbOid = 3802;
