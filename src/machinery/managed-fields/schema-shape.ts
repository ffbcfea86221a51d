/**
 * How server-side apply sees a value through its schema (structured-merge-diff's
 * `typed` view): a leaf, owned and replaced whole, or a granular container whose
 * children are owned and merged one by one.
 *
 * - Objects and maps are granular, unless `x-kubernetes-map-type: atomic`.
 * - Lists are atomic leaves unless `x-kubernetes-list-type` is `map` (items identified
 *   by `x-kubernetes-list-map-keys`) or `set` (items identified by their value).
 * - Scalars, and whatever the schema does not describe (unknown fields kept by
 *   `x-kubernetes-preserve-unknown-fields`, a value of another type than the schema's),
 *   are leaves.
 */
import type { JsonSchema, SchemaResolver } from '../json-schema.js';
import { isPlainObject } from '../meta/object.js';
import { fieldElement, formatPath, indexElement, keyElement, valueElement, type Path, type PathElement } from './field-path.js';

/** The apply semantics of one place of the schema; item schemas are resolved. */
export type Shape =
  | { readonly kind: 'leaf' }
  | { readonly kind: 'map'; readonly schema: JsonSchema }
  | { readonly kind: 'list-map'; readonly keys: readonly string[]; readonly item: JsonSchema }
  | { readonly kind: 'set'; readonly item: JsonSchema | undefined };

/** A shape whose values have children. */
export type GranularShape = Exclude<Shape, { kind: 'leaf' }>;

/** One child of a granular value. */
export interface Child {
  readonly element: PathElement;
  readonly schema: JsonSchema | undefined;
  readonly value: unknown;
  /** List items and map entries are members themselves, beside their fields; an object's fields are not. */
  readonly item: boolean;
}

/** Why a list item of an applied configuration could not be identified, with the path of its list. */
export interface Problem {
  readonly path: Path;
  readonly message: string;
}

const leaf: Shape = { kind: 'leaf' };

/**
 * Each resolver's schemas' shapes, read once: a write walks its object through the
 * schema, asking the shape of the same few places at every node. Schemas never change,
 * and a schema object means one place only under its own resolver (a `$ref` is resolved
 * by it).
 */
const shapes = new WeakMap<SchemaResolver, WeakMap<JsonSchema, Shape>>();

/** The shape of the values `schema` describes; `undefined` (no schema) is a leaf. */
export function shapeOf(schema: JsonSchema | undefined, resolve: SchemaResolver): Shape {
  if (!schema) return leaf;
  let known = shapes.get(resolve);
  if (known === undefined) shapes.set(resolve, (known = new WeakMap()));
  let shape = known.get(schema);
  if (shape === undefined) known.set(schema, (shape = readShape(schema, resolve)));
  return shape;
}

function readShape(schema: JsonSchema, resolve: SchemaResolver): Shape {
  const s = resolve(schema);
  // kube's OpenAPI may put the extensions beside an `allOf: [{$ref}]` wrapper: they win over the target's.
  const extension = <K extends keyof JsonSchema>(key: K): JsonSchema[K] => schema[key] ?? s[key];
  if (s.type === 'array' || s.items) {
    const listType = extension('x-kubernetes-list-type');
    const keys = extension('x-kubernetes-list-map-keys') ?? [];
    const item = s.items && resolve(s.items);
    if (listType === 'map' && keys.length > 0) return { kind: 'list-map', keys, item: item ?? {} };
    // A list-map without keys is a set of scalars, as in structured-merge-diff.
    return listType === 'map' || listType === 'set' ? { kind: 'set', item } : leaf;
  }
  if (s.type === 'object' || s.properties || s.additionalProperties !== undefined) {
    return extension('x-kubernetes-map-type') === 'atomic' ? leaf : { kind: 'map', schema: s };
  }
  return leaf;
}

/** Whether `value` can be walked as `shape`: absent and null values fit any container. */
export function fits(shape: GranularShape, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  return shape.kind === 'map' ? isPlainObject(value) : Array.isArray(value);
}

/**
 * The granular shape under which two versions of a value merge and compare, or
 * undefined when they are one leaf: when either does not fit, and when neither holds
 * anything, so that `{}` or `[]` replacing nothing reads as a change of a leaf
 * (structured-merge-diff's "empty promote to leaf").
 */
export function sharedShape(schema: JsonSchema | undefined, resolve: SchemaResolver, lhs: unknown, rhs: unknown): GranularShape | undefined {
  const shape = shapeOf(schema, resolve);
  if (shape.kind === 'leaf' || !fits(shape, lhs) || !fits(shape, rhs) || (isVoid(lhs) && isVoid(rhs))) return undefined;
  return shape;
}

/** Whether a value holds nothing: absent, null, `[]` or `{}`. */
export function isVoid(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isPlainObject(value) && Object.keys(value).length === 0;
}

/**
 * The children of a value that fits `shape`, in its order. Reading an applied
 * configuration (`problems` given), list items that cannot be identified (a missing
 * key field, a null) and duplicates are reported there and left out, as kube refuses
 * them. Reading a stored object, nothing is left out: an item that cannot be
 * identified is known by its index (`i:<n>`), which no configuration names, and
 * duplicates stay, as kube reads live objects.
 */
export function childrenOf(shape: GranularShape, value: unknown, path: Path, problems?: Problem[]): Child[] {
  if (value === undefined || value === null) return [];
  if (shape.kind === 'map') return mapChildren(shape.schema, value as Record<string, unknown>);
  const seen = new Set<PathElement>();
  const children: Child[] = [];
  (value as unknown[]).forEach((item, i) => {
    const identified = shape.kind === 'list-map' ? keyOf(shape, item) : valueOf(item);
    if (typeof identified !== 'string') {
      if (problems) problems.push({ path, message: `element ${i}: ${identified.problem}` });
      else children.push({ element: indexElement(i), schema: shape.item, value: item, item: true });
    } else if (problems && seen.has(identified)) {
      problems.push({ path, message: `duplicate entries for key ${formatPath([identified])}` });
    } else {
      seen.add(identified);
      children.push({ element: identified, schema: shape.item, value: item, item: true });
    }
  });
  return children;
}

function mapChildren(schema: JsonSchema, value: Readonly<Record<string, unknown>>): Child[] {
  const entries = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  return Object.entries(value).map(([name, child]) => {
    const field = schema.properties && Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
    return { element: fieldElement(name), schema: field ?? entries, value: child, item: !field };
  });
}

// Messages as structured-merge-diff words them.
function keyOf(shape: { readonly keys: readonly string[]; readonly item: JsonSchema }, item: unknown): PathElement | { problem: string } {
  if (item === null) return { problem: 'associative list with keys may not have a null element' };
  if (!isPlainObject(item)) return { problem: 'associative list with keys may not have non-map elements' };
  const keys: Record<string, unknown> = {};
  for (const name of shape.keys) {
    const value = item[name] !== undefined ? item[name] : shape.item.properties?.[name]?.default;
    if (value === undefined) {
      return { problem: `associative list with keys has an element that omits key field "${name}" (and doesn't have default value)` };
    }
    keys[name] = value;
  }
  return keyElement(keys);
}

function valueOf(item: unknown): PathElement | { problem: string } {
  if (item === null) return { problem: "associative list without keys has an element that's an explicit null" };
  if (Array.isArray(item)) return { problem: 'not supported: associative list with lists as elements' };
  if (isPlainObject(item)) return { problem: "associative list without keys has an element that's a map type" };
  return valueElement(item);
}
