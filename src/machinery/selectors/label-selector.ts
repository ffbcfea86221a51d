/**
 * Label selectors as kube's `labels` package has them: parsing a `labelSelector` query
 * parameter with kube's grammar and errors, matching an object's labels, printing a selector
 * back in its canonical text, and reading a `metav1.LabelSelector` object (`matchLabels`,
 * `matchExpressions`) as one.
 */
import { labelValueErrors, qualifiedNameErrors } from '../meta/qualified-name.js';
import { SelectorParseError } from './selector-parse-error.js';

/**
 * A label selector operator, spelled as k8s.io/apimachinery/pkg/selection spells it:
 * `exists` is a bare `key`, `!` is `!key`, `gt`/`lt` are `key>1`/`key<1`.
 */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/**
 * One clause of a label selector. `values` is sorted and free of duplicates; it is empty
 * for `exists` and `!`, holds exactly one value for `=`, `==`, `!=`, `gt` and `lt`, and at
 * least one (possibly `''`) for `in` and `notin`.
 */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

/** A parsed label selector: the AND of its requirements, sorted by key. Empty matches everything. */
export type LabelSelector = readonly LabelRequirement[];

/** The label map of an object, as found in `metadata.labels`. */
export type Labels = Readonly<Record<string, string>>;

/**
 * Parses a `labelSelector` with the grammar and validation of kube's `labels.Parse`:
 * `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x,y)`, `a`, `!a`, `a>1`, `a<1`, joined by
 * commas, whitespace allowed between tokens. `''` yields the empty selector.
 *
 * @throws SelectorParseError with kube's wording, e.g.
 *   `unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt`.
 * @example
 * parseLabelSelector('app=web, tier notin (cache)')
 * // [{ key: 'app', operator: '=', values: ['web'] }, { key: 'tier', operator: 'notin', values: ['cache'] }]
 */
export function parseLabelSelector(text: string): LabelSelector {
  try {
    const requirements = new Parser(lex(text)).parse();
    requirements.sort((a, b) => compare(a.key, b.key));
    return Object.freeze(requirements);
  } catch (error) {
    if (error instanceof ParseFailure) throw new SelectorParseError(error.message, text);
    throw error;
  }
}

/**
 * Whether `labels` satisfy every requirement, with kube's semantics: `!=` and `notin`
 * match when the key is absent; `gt`/`lt` need the label to be a 64-bit integer.
 */
export function matchesLabels(selector: LabelSelector, labels: Labels | undefined): boolean {
  return selector.every((r) => matchesRequirement(r, labels ?? {}));
}

/**
 * The canonical string of a selector, as kube's `Selector.String()` prints it:
 * `parseLabelSelector(formatLabelSelector(s))` equals `s`.
 *
 * @example formatLabelSelector(parseLabelSelector('b in (y, x), a')) // 'a,b in (x,y)'
 */
export function formatLabelSelector(selector: LabelSelector): string {
  return selector.map(formatRequirement).join(',');
}

function matchesRequirement({ key, operator, values }: LabelRequirement, labels: Labels): boolean {
  const value = Object.hasOwn(labels, key) ? labels[key] : undefined;
  switch (operator) {
    case 'in':
    case '=':
    case '==':
      return value !== undefined && values.includes(value);
    case 'notin':
    case '!=':
      return value === undefined || !values.includes(value);
    case 'exists':
      return value !== undefined;
    case '!':
      return value === undefined;
    case 'gt':
    case 'lt': {
      const actual = value === undefined ? undefined : parseInt64(value);
      const bound = parseInt64(values[0] ?? '');
      if (actual === undefined || bound === undefined) return false;
      return operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

const OPERATOR_TEXT: Readonly<Record<LabelOperator, string>> = Object.freeze({
  in: ' in ',
  notin: ' notin ',
  '=': '=',
  '==': '==',
  '!=': '!=',
  exists: '',
  '!': '',
  gt: '>',
  lt: '<',
});

function formatRequirement({ key, operator, values }: LabelRequirement): string {
  if (operator === 'exists') return key;
  if (operator === '!') return `!${key}`;
  const joined = [...values].sort(compare).join(',');
  const set = operator === 'in' || operator === 'notin';
  return `${key}${OPERATOR_TEXT[operator]}${set ? `(${joined})` : joined}`;
}

/** Go's `strconv.ParseInt(s, 10, 64)`: the only numbers `gt`/`lt` understand. */
export function parseInt64(text: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const n = BigInt(text);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

/** Byte-order comparison, as Go's sort.Strings uses (for the ASCII that validation allows). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---- lexer: a port of labels.Lexer ----

type Token = 'end' | 'identifier' | ')' | ',' | '!' | '==' | '=' | '>' | 'in' | '<' | '!=' | 'notin' | '(';

interface Scanned {
  readonly token: Token;
  readonly literal: string;
}

const KEYWORDS: ReadonlyMap<string, Token> = new Map<string, Token>([
  [')', ')'],
  [',', ','],
  ['!', '!'],
  ['==', '=='],
  ['=', '='],
  ['>', '>'],
  ['in', 'in'],
  ['<', '<'],
  ['!=', '!='],
  ['notin', 'notin'],
  ['(', '('],
]);

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string): boolean => '=!(),><'.includes(ch);

function lex(text: string): Scanned[] {
  const items: Scanned[] = [];
  let pos = 0;
  for (;;) {
    while (pos < text.length && isWhitespace(text[pos])) pos++;
    if (pos >= text.length) {
      items.push({ token: 'end', literal: '' });
      return items;
    }
    const start = pos;
    if (isSpecial(text[pos])) {
      // longest run of special characters that is still an operator ("!=" over "!")
      let end = pos + 1;
      while (end < text.length && isSpecial(text[end]) && KEYWORDS.has(text.slice(start, end + 1))) end++;
      pos = end;
    } else {
      while (pos < text.length && !isSpecial(text[pos]) && !isWhitespace(text[pos])) pos++;
    }
    const literal = text.slice(start, pos);
    items.push({ token: KEYWORDS.get(literal) ?? 'identifier', literal });
  }
}

// ---- parser: a port of labels.Parser, keeping kube's error messages ----

/** Internal failure carrying kube's message; becomes a SelectorParseError at the boundary. */
class ParseFailure extends Error {}

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

const OPERATOR_OF: ReadonlyMap<Token, LabelOperator> = new Map<Token, LabelOperator>([
  ['in', 'in'],
  ['notin', 'notin'],
  ['=', '='],
  ['==', '=='],
  ['!=', '!='],
  ['>', 'gt'],
  ['<', 'lt'],
]);

class Parser {
  readonly #items: readonly Scanned[];
  #position = 0;

  constructor(items: readonly Scanned[]) {
    this.#items = items;
  }

  /** The current token; in value context the keywords `in`/`notin` are plain identifiers. */
  #lookahead(values = true): Scanned {
    const item = this.#items[this.#position];
    return values && (item.token === 'in' || item.token === 'notin') ? { token: 'identifier', literal: item.literal } : item;
  }

  #consume(values = true): Scanned {
    const item = this.#lookahead(values);
    this.#position++;
    return item;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { token, literal } = this.#lookahead();
      if (token === 'end') return requirements;
      if (token !== 'identifier' && token !== '!') {
        throw new ParseFailure(`found '${literal}', expected: !, identifier, or 'end of string'`);
      }
      try {
        requirements.push(this.#parseRequirement());
      } catch (error) {
        if (error instanceof ParseFailure) throw new ParseFailure(`unable to parse requirement: ${error.message}`);
        throw error;
      }
      const next = this.#consume();
      if (next.token === 'end') return requirements;
      if (next.token !== ',') throw new ParseFailure(`found '${next.literal}', expected: ',' or 'end of string'`);
      const after = this.#lookahead();
      if (after.token !== 'identifier' && after.token !== '!') {
        throw new ParseFailure(`found '${after.literal}', expected: identifier after ','`);
      }
    }
  }

  #parseRequirement(): LabelRequirement {
    let negated = false;
    let { token, literal: key } = this.#consume();
    if (token === '!') {
      negated = true;
      ({ token, literal: key } = this.#consume());
    }
    if (token !== 'identifier') throw new ParseFailure(`found '${key}', expected: identifier`);
    const keyErrors = qualifiedNameErrors(key);
    if (keyErrors.length > 0) throw new ParseFailure(invalid('key', key, keyErrors));
    const next = this.#lookahead().token;
    if (negated) return newRequirement(key, '!', []);
    if (next === 'end' || next === ',') return newRequirement(key, 'exists', []);

    const op = this.#consume(false);
    const operator = OPERATOR_OF.get(op.token);
    if (operator === undefined) throw new ParseFailure(`found '${op.literal}', expected: ${BINARY_OPERATORS}`);
    const values = operator === 'in' || operator === 'notin' ? this.#parseValues() : this.#parseExactValue();
    return newRequirement(key, operator, [...new Set(values)].sort(compare));
  }

  #parseValues(): string[] {
    const open = this.#consume();
    if (open.token !== '(') throw new ParseFailure(`found '${open.literal}' expected: '('`);
    const { token, literal } = this.#lookahead();
    if (token === ')') {
      this.#consume();
      return [''];
    }
    if (token !== 'identifier' && token !== ',') {
      throw new ParseFailure(`found '${literal}', expected: ',', ')' or identifier`);
    }
    const values = this.#parseIdentifiers();
    this.#consume(); // the ')' that #parseIdentifiers stopped at
    return values;
  }

  /** A comma-separated list where an omitted value (`(,a)`, `(a,)`, `(a,,b)`) is `''`. */
  #parseIdentifiers(): string[] {
    const values: string[] = [];
    for (;;) {
      const { token, literal } = this.#consume();
      if (token === 'identifier') {
        values.push(literal);
        const next = this.#lookahead();
        if (next.token === ')') return values;
        if (next.token !== ',') throw new ParseFailure(`found '${next.literal}', expected: ',' or ')'`);
      } else if (token === ',') {
        if (values.length === 0) values.push('');
        const next = this.#lookahead().token;
        if (next === ')') {
          values.push('');
          return values;
        }
        if (next === ',') values.push('');
      } else {
        throw new ParseFailure(`found '${literal}', expected: ',', or identifier`);
      }
    }
  }

  #parseExactValue(): string[] {
    const next = this.#lookahead().token;
    if (next === 'end' || next === ',') return [''];
    const { token, literal } = this.#consume();
    if (token !== 'identifier') throw new ParseFailure(`found '${literal}', expected: identifier`);
    return [literal];
  }
}

/** kube's `NewRequirement` checks that the parser's grammar does not already guarantee. */
function newRequirement(key: string, operator: LabelOperator, values: readonly string[]): LabelRequirement {
  const errors: string[] = [];
  if (operator === 'gt' || operator === 'lt') {
    values.forEach((v, i) => {
      if (parseInt64(v) === undefined) {
        errors.push(invalid(`values[${i}]`, v, ["for 'Gt', 'Lt' operators, the value must be an integer"]));
      }
    });
  }
  values.forEach((v, i) => {
    const valueErrors = labelValueErrors(v);
    if (valueErrors.length > 0) errors.push(invalid(`values[${i}][${key}]`, v, valueErrors));
  });
  if (errors.length === 1) throw new ParseFailure(errors[0]);
  if (errors.length > 1) throw new ParseFailure(`[${errors.join(', ')}]`);
  return Object.freeze({ key, operator, values: Object.freeze([...values]) });
}

function invalid(path: string, value: string, details: readonly string[]): string {
  return `${path}: Invalid value: ${JSON.stringify(value)}: ${details.join('; ')}`;
}

/** A `metav1.LabelSelector` as objects carry it (a webhook's `namespaceSelector`, a Deployment's `selector`). */
export interface LabelSelectorObject {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly { readonly key: string; readonly operator: string; readonly values?: readonly string[] }[];
}

const expressionOperators: Readonly<Record<string, LabelOperator>> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * kube's `metav1.LabelSelectorAsSelector`: `matchLabels` and `matchExpressions` as one
 * selector; empty matches everything. Throws on an operator kube does not know.
 *
 * @example labelSelectorOf({ matchLabels: { app: 'web' } }) // [{ key: 'app', operator: '=', values: ['web'] }]
 */
export function labelSelectorOf(selector: LabelSelectorObject): LabelSelector {
  const requirements: LabelRequirement[] = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({ key, operator: '=', values: [value] }));
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const op = expressionOperators[operator];
    if (op === undefined) throw new Error(`${JSON.stringify(operator)} is not a valid label selector operator`);
    requirements.push({ key, operator: op, values: op === 'in' || op === 'notin' ? [...new Set(values)].sort() : [] });
  }
  return Object.freeze(requirements.sort((a, b) => compare(a.key, b.key)));
}
