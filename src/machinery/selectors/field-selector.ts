/**
 * Field selectors as kube's `fields` package has them: parsing a `fieldSelector` query
 * parameter, matching an object's selectable fields, and printing a selector back in its
 * canonical text.
 */
import { SelectorParseError } from './selector-parse-error.js';

/** One `field=value` (or `field!=value`) term of a field selector; `==` parses as `=`. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

/** A parsed field selector: the AND of its terms. Empty matches everything. */
export type FieldSelector = readonly FieldRequirement[];

/**
 * An object's selectable fields, e.g. `{ 'metadata.name': 'x', 'spec.runnerClassName': 'std' }`.
 * A field may hold a list (`metadata.ownerReferences.uid`: metadata-fields.ts): `=v` then
 * matches when the list holds v, `!=v` when it does not.
 */
export type Fields = Readonly<Record<string, string | readonly string[]>>;

/**
 * Parses a `fieldSelector` as kube's `fields.ParseSelector` does: comma-separated
 * `field=value`, `field==value` or `field!=value` terms, empty terms ignored, terms
 * ordered by their text. In values, `\,`, `\=` and `\\` stand for `,`, `=` and `\`; any
 * other backslash sequence, and an unescaped `,` or `=`, is an error. Nothing is trimmed:
 * `a = b` has field `'a '` and value `' b'`, as in kube. Field names are not checked here;
 * the registry checks them against the kind's selectable fields.
 *
 * @throws SelectorParseError e.g. `invalid selector: 'a'; can't understand 'a'`.
 * @example
 * parseFieldSelector('metadata.name!=x,spec.note=a\\,b')
 * // [{ field: 'metadata.name', operator: '!=', value: 'x' }, { field: 'spec.note', operator: '=', value: 'a,b' }]
 */
export function parseFieldSelector(text: string): FieldSelector {
  const terms = splitTerms(text).sort(compare);
  const requirements: FieldRequirement[] = [];
  for (const term of terms) {
    if (term === '') continue;
    const split = splitTerm(term);
    if (split === undefined) throw new SelectorParseError(`invalid selector: '${text}'; can't understand '${term}'`, text);
    const value = unescapeValue(split.rhs, text);
    requirements.push(Object.freeze({ field: split.lhs, operator: split.op === '!=' ? '!=' : '=', value }));
  }
  return Object.freeze(requirements);
}

/**
 * Whether `fields` satisfy every term; a field absent from the record counts as `''`, as
 * in kube, and a list field equals each value it holds (and, being never empty, not `''`).
 */
export function matchesFields(selector: FieldSelector, fields: Fields): boolean {
  return selector.every(({ field, operator, value }) => {
    const actual = Object.hasOwn(fields, field) ? fields[field] : '';
    const equal = typeof actual === 'string' ? actual === value : actual.includes(value);
    return operator === '=' ? equal : !equal;
  });
}

/**
 * The canonical string of a selector, values escaped, as kube's `Selector.String()` prints it.
 *
 * @example formatFieldSelector([{ field: 'a', operator: '=', value: 'x,y' }]) // 'a=x\\,y'
 */
export function formatFieldSelector(selector: FieldSelector): string {
  return selector.map(({ field, operator, value }) => `${field}${operator}${escapeFieldValue(value)}`).join(',');
}

/**
 * Escapes a literal for use as a field selector value (kube's `fields.EscapeValue`).
 *
 * @example `spec.note=${escapeFieldValue('a=b')}` // 'spec.note=a\\=b'
 */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (ch) => `\\${ch}`);
}

/** Splits on commas not preceded by an escaping backslash; escapes stay in the terms. */
function splitTerms(text: string): string[] {
  if (text === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inSlash) inSlash = false;
    else if (ch === '\\') inSlash = true;
    else if (ch === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

const TERM_OPERATORS = ['!=', '==', '='] as const;

/** Splits at the first operator; `==` is tried before `=` so no `=` is left on the value. */
function splitTerm(term: string): { lhs: string; op: (typeof TERM_OPERATORS)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of TERM_OPERATORS) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

function unescapeValue(raw: string, selector: string): string {
  let out = '';
  let inSlash = false;
  for (const ch of raw) {
    if (inSlash) {
      if (ch !== '\\' && ch !== ',' && ch !== '=') {
        throw new SelectorParseError(`invalid field selector: invalid escape sequence: \\${ch}`, selector);
      }
      out += ch;
      inSlash = false;
    } else if (ch === '\\') {
      inSlash = true;
    } else if (ch === ',' || ch === '=') {
      throw new SelectorParseError(`invalid field selector: unescaped character in value: '${ch}'`, selector);
    } else {
      out += ch;
    }
  }
  if (inSlash) throw new SelectorParseError('invalid field selector: invalid escape sequence: \\', selector);
  return out;
}

/** Byte-order comparison, as Go's sort.Strings uses (identical for ASCII). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
