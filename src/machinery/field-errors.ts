/**
 * Field paths and field errors, as apimachinery's `field` package builds them, so paths
 * and reasons cannot drift between modules: `fieldPath('spec').child('steps').index(2)`
 * prints `spec.steps[2]`, and `invalid(path, value, detail)` is kube's `field.Invalid`.
 *
 * @example
 * const path = fieldPath('spec', 'replicas');
 * errors.push(invalid(path, -1, 'must be greater than or equal to 0'));
 * // { field: 'spec.replicas', reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0' }
 */
/** One field error, as `field.Error` renders it. */
export interface FieldError {
  /** `spec.steps[2].name` */
  readonly field: string;
  /** `FieldValueRequired`, `FieldValueInvalid`, `FieldValueNotSupported`, `FieldValueTooLong`, … */
  readonly reason: string;
  /** The detail, e.g. `Required value` or `Invalid value: "x": must be …`. */
  readonly message: string;
}

/** A path to a field, immutable: every step returns a new path. */
export class FieldPath {
  readonly #text: string;

  private constructor(text: string) {
    this.#text = text;
  }

  /** The path of the root (`''`), where errors about a whole object sit. */
  static readonly root = new FieldPath('');

  /** A field of this path: `spec` → `spec.steps`. */
  child(name: string, ...more: string[]): FieldPath {
    const next = new FieldPath(this.#text ? `${this.#text}.${name}` : name);
    return more.length ? next.child(more[0], ...more.slice(1)) : next;
  }

  /** An item of the list at this path: `spec.steps[2]`. */
  index(index: number): FieldPath {
    return new FieldPath(`${this.#text}[${index}]`);
  }

  /** A key of the map at this path: `metadata.labels[app]`. */
  key(key: string): FieldPath {
    return new FieldPath(`${this.#text}[${key}]`);
  }

  /** The path as kube prints it. */
  toString(): string {
    return this.#text;
  }
}

/** kube's `field.NewPath(name, more...)`. */
export function fieldPath(name: string, ...more: string[]): FieldPath {
  return FieldPath.root.child(name, ...more);
}

const goEscapes: Readonly<Record<string, string>> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** A string as Go's `%q` (strconv.Quote) writes it: what is not printable is escaped, `\x01`, `\u00a0`. */
export function goQuote(text: string): string {
  let quoted = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === '\\') quoted += `\\${char}`;
    else if (printable.test(char)) quoted += char;
    else if (goEscapes[char]) quoted += goEscapes[char];
    else if (code < 0x20 || code === 0x7f) quoted += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code < 0x10000) quoted += `\\u${code.toString(16).padStart(4, '0')}`;
    else quoted += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return `${quoted}"`;
}

/**
 * How kube prints a value in an error: a string as Go's `%q`, anything else as Go's
 * json.Marshal, which escapes what HTML would read (`<`, `>`, `&`) and the JavaScript line ends.
 */
function show(value: unknown): string {
  if (typeof value === 'string') return goQuote(value);
  const json = JSON.stringify(value) ?? 'null';
  return json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const error = (path: FieldPath, reason: string, message: string): FieldError => ({ field: path.toString(), reason, message });

/** `field.Invalid`: the value is not acceptable, for `detail`. */
export function invalid(path: FieldPath, value: unknown, detail: string): FieldError {
  return error(path, 'FieldValueInvalid', `Invalid value: ${show(value)}: ${detail}`);
}

/** `field.Required`: a value is missing. */
export function required(path: FieldPath, detail = ''): FieldError {
  return error(path, 'FieldValueRequired', detail ? `Required value: ${detail}` : 'Required value');
}

/** `field.NotFound`: the value names something that does not exist. */
export function notFound(path: FieldPath, value: unknown): FieldError {
  return error(path, 'FieldValueNotFound', `Not found: ${show(value)}`);
}

/** `field.Forbidden`: the field may not be set (here, now). */
export function forbidden(path: FieldPath, detail: string): FieldError {
  return error(path, 'FieldValueForbidden', `Forbidden: ${detail}`);
}

/** `field.Duplicate`: the value repeats one earlier in the list. */
export function duplicate(path: FieldPath, value: unknown): FieldError {
  return error(path, 'FieldValueDuplicate', `Duplicate value: ${show(value)}`);
}

/** `field.NotSupported`: the value is not one of `supported`. */
export function notSupported(path: FieldPath, value: unknown, supported: readonly string[]): FieldError {
  return error(path, 'FieldValueNotSupported', `Unsupported value: ${show(value)}: supported values: ${supported.map((s) => show(s)).join(', ')}`);
}

/** `field.TooLong`: the value is longer than `max` bytes; as kube, the value itself is not shown. */
export function tooLong(path: FieldPath, max: number): FieldError {
  return error(path, 'FieldValueTooLong', `Too long: may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}`);
}

/** `field.TypeInvalid`: the value is of the wrong type. */
export function typeInvalid(path: FieldPath, value: unknown, detail: string): FieldError {
  return error(path, 'FieldValueTypeInvalid', `Invalid value: ${show(value)}: ${detail}`);
}
