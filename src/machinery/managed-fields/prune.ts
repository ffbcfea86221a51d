/**
 * Removing what an applier stopped applying (structured-merge-diff's `prune`): a
 * field, list item or map entry it applied last time, no longer applies, and nobody
 * owns now.
 */
import type { JsonSchema, SchemaResolver } from '../json-schema.js';
import { nameOfField, type Path, type PathElement } from './field-path.js';
import { childrenOf, fits, isVoid, shapeOf } from './schema-shape.js';

/**
 * What the prune asks about a path of the merged object. The answers come from
 * field sets that may be written in other apiVersions than the object's (see
 * `pruneOwnership`).
 */
export interface PruneOwnership {
  /** Whether the path, or something under it, is in the applier's previous configuration: only then is it looked into. */
  lastTouches(path: Path): boolean;
  /** Whether the path is in the applier's previous configuration. */
  lastHas(path: Path): boolean;
  /** Whether someone (another manager, or the applier's new configuration) owns the path or something under it. */
  ownedTouches(path: Path): boolean;
  /** Whether someone owns the path itself. */
  ownedHas(path: Path): boolean;
}

/**
 * Returns `object` without what the applier's previous configuration set and nobody
 * owns now. A list item or map entry goes with everything under it, unless someone
 * owns something under it: then it stays, with its key fields and the owned parts. A
 * container that the removal empties goes too, as kube drops it, unless someone owns
 * it.
 */
export function removeDisowned(object: unknown, schema: JsonSchema, resolve: SchemaResolver, ownership: PruneOwnership): unknown {
  const prune = (value: unknown, nodeSchema: JsonSchema | undefined, path: Path, keys: readonly string[]): unknown => {
    const shape = shapeOf(nodeSchema, resolve);
    if (shape.kind === 'leaf' || value === null || !fits(shape, value)) return value;
    const kept: Array<readonly [PathElement, unknown]> = [];
    for (const child of childrenOf(shape, value, path)) {
      const element = child.element;
      const childPath = [...path, element];
      // The key fields of a list-map item stay as long as the item does.
      const isKey = shape.kind === 'map' && keys.includes(nameOfField(element));
      if (isKey || !ownership.lastTouches(childPath)) {
        kept.push([element, child.value]);
        continue;
      }
      if (ownership.lastHas(childPath) && !ownership.ownedTouches(childPath)) continue;
      const pruned = prune(child.value, child.schema, childPath, shape.kind === 'list-map' ? shape.keys : []);
      if (isVoid(pruned) && !isVoid(child.value) && !ownership.ownedHas(childPath)) continue;
      kept.push([element, pruned]);
    }
    if (shape.kind === 'map') return Object.fromEntries(kept.map(([element, v]) => [nameOfField(element), v]));
    return kept.map(([, v]) => v);
  };
  return prune(object, schema, [], []);
}
