/**
 * Merging an applied configuration into the live object (structured-merge-diff's
 * `Merge`): the configuration's values win, nothing is removed.
 */
import type { JsonSchema, SchemaResolver } from '../json-schema.js';
import { nameOfField, type PathElement } from './field-path.js';
import { childrenOf, sharedShape, type Child } from './schema-shape.js';

/**
 * Merges `applied` into `live` and returns the result; neither input is changed (the
 * result may share leaves with them). Leaves, atomic lists and atomic maps are taken
 * from `applied` when it sets them; objects and maps merge field by field; list-map
 * and set items merge by key or value, in the configuration's order, with the items
 * only the live object has kept after the item that preceded them there.
 */
export function mergeApplied(live: unknown, applied: unknown, schema: JsonSchema, resolve: SchemaResolver): unknown {
  const merge = (lhs: unknown, rhs: unknown, nodeSchema: JsonSchema | undefined): unknown => {
    if (rhs === undefined) return lhs;
    if (lhs === undefined) return rhs;
    const shape = sharedShape(nodeSchema, resolve, lhs, rhs);
    if (!shape) return rhs;
    if (shape.kind !== 'map') return mergeItems(childrenOf(shape, lhs, []), childrenOf(shape, rhs, []), merge);
    const out = new Map(Object.entries(lhs ?? {}));
    for (const child of childrenOf(shape, rhs, [])) {
      const name = nameOfField(child.element);
      out.set(name, merge(out.get(name), child.value, child.schema));
    }
    return Object.fromEntries(out);
  };
  return merge(live, applied, schema);
}

type Merge = (lhs: unknown, rhs: unknown, schema: JsonSchema | undefined) => unknown;

/**
 * The items of a list-map or set after a merge. Items the configuration names come in
 * its order, merged with their live counterpart (which replaces the live duplicates
 * of it); an item only the live object has stays right after the live item before it,
 * as structured-merge-diff orders them.
 */
function mergeItems(live: readonly Child[], applied: readonly Child[], merge: Merge): unknown[] {
  // A stored list may hold duplicates; the first is the one a configuration merges into.
  const liveIndex = new Map<PathElement, number>();
  live.forEach((child, i) => liveIndex.set(child.element, liveIndex.get(child.element) ?? i));
  const named = new Set(applied.map((child) => child.element));
  const out: unknown[] = [];
  let next = 0;
  const keepLiveOnly = (until: number): void => {
    for (; next < until; next++) if (!named.has(live[next].element)) out.push(live[next].value);
  };
  for (const item of applied) {
    const at = liveIndex.get(item.element);
    if (at === undefined) {
      while (next < live.length && !named.has(live[next].element)) out.push(live[next++].value);
      out.push(item.value);
    } else {
      keepLiveOnly(at);
      next = Math.max(next, at + 1);
      out.push(merge(live[at].value, item.value, item.schema));
    }
  }
  keepLiveOnly(live.length);
  return out;
}
