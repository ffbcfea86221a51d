/**
 * Removing what an applier stopped applying (structured-merge-diff's `prune`): a
 * field, list item or map entry it applied last time, no longer applies, and nobody
 * owns now.
 */
import type { JsonSchema, SchemaResolver } from '../json-schema.js';
import { nameOfField } from './field-path.js';
import type { FieldSet } from './field-set.js';
import { childrenOf, fits, isVoid, shapeOf } from './schema-shape.js';

/**
 * Returns `object` without the members of `last` (the applier's previous
 * configuration) that are not in `owned` (its new configuration and every other
 * manager's fields). A list item or map entry goes with everything under it, unless
 * someone owns something under it: then it stays, with its key fields and the owned
 * parts. A container that the removal empties goes too, as kube drops it, unless
 * someone owns it.
 */
export function removeDisowned(object: unknown, schema: JsonSchema, resolve: SchemaResolver, last: FieldSet, owned: FieldSet): unknown {
  const prune = (value: unknown, nodeSchema: JsonSchema | undefined, lastHere: FieldSet, ownedHere: FieldSet, keys: readonly string[]): unknown => {
    const shape = shapeOf(nodeSchema, resolve);
    if (lastHere.isEmpty || shape.kind === 'leaf' || value === null || !fits(shape, value)) return value;
    const kept: Array<readonly [string, unknown]> = [];
    for (const child of childrenOf(shape, value, [])) {
      const element = child.element;
      // The key fields of a list-map item stay as long as the item does.
      const isKey = shape.kind === 'map' && keys.includes(nameOfField(element));
      if (!isKey && lastHere.has([element]) && !ownedHere.touches(element)) continue;
      const lastChild = lastHere.child(element);
      const itemKeys = shape.kind === 'list-map' ? shape.keys : [];
      const pruned = lastChild.isEmpty ? child.value : prune(child.value, child.schema, lastChild, ownedHere.child(element), itemKeys);
      if (!isKey && isVoid(pruned) && !isVoid(child.value) && !ownedHere.has([element])) continue;
      kept.push([element, pruned]);
    }
    if (shape.kind === 'map') return Object.fromEntries(kept.map(([element, v]) => [nameOfField(element), v]));
    return kept.map(([, v]) => v);
  };
  return prune(object, schema, last, owned, []);
}
