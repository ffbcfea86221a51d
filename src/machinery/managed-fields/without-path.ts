/**
 * Removing one path from an object, and nothing else: how the prune finds what a
 * path of one apiVersion is in another (remove it, convert, compare).
 */
import type { JsonSchema, SchemaResolver } from '../json-schema.js';
import { nameOfField, type Path } from './field-path.js';
import { childrenOf, fits, shapeOf } from './schema-shape.js';

/**
 * A copy of `value` without the field, list item or map entry at `path` (every
 * duplicate of a list item); the containers on the way stay, even when emptied.
 * Shares the untouched parts with `value`.
 */
export function withoutPath(value: unknown, schema: JsonSchema | undefined, resolve: SchemaResolver, path: Path): unknown {
  const shape = shapeOf(schema, resolve);
  if (path.length === 0 || shape.kind === 'leaf' || value === undefined || value === null || !fits(shape, value)) return value;
  const [element, ...rest] = path;
  const kept = childrenOf(shape, value, []).flatMap((child) => {
    if (child.element !== element) return [[child.element, child.value] as const];
    return rest.length === 0 ? [] : [[child.element, withoutPath(child.value, child.schema, resolve, rest)] as const];
  });
  if (shape.kind === 'map') return Object.fromEntries(kept.map(([e, v]) => [nameOfField(e), v]));
  return kept.map(([, v]) => v);
}
