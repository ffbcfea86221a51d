/**
 * What changed between two versions of an object, path by path (structured-merge-diff's
 * `Compare`): the changes that move ownership from one manager to another.
 */
import type { JsonSchema, SchemaResolver } from '../json-schema.js';
import { jsonEqual } from '../meta/object.js';
import type { Path, PathElement } from './field-path.js';
import { FieldSet } from './field-set.js';
import { childrenOf, sharedShape, type Child } from './schema-shape.js';

/** The paths an update added, modified and removed; no path is in two of them. */
export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/**
 * Compares `before` with `after`. Leaves (scalars, atomic lists and maps) are added,
 * removed or modified; a granular container, list item or map entry is added or
 * removed as a whole when it appears or disappears, and otherwise only through its
 * children. A container empty on both sides is compared as a leaf, so `{}` and `[]`
 * replacing nothing are additions.
 */
export function compareObjects(before: unknown, after: unknown, schema: JsonSchema, resolve: SchemaResolver): Comparison {
  const added: Path[] = [];
  const modified: Path[] = [];
  const removed: Path[] = [];
  const note = (lhs: unknown, rhs: unknown, path: Path, leaf: boolean): void => {
    if (lhs === undefined) added.push(path);
    else if (rhs === undefined) removed.push(path);
    else if (leaf && !jsonEqual(lhs, rhs)) modified.push(path);
  };
  // What `visit` does of a value with nothing before it (every value of a create): itself and all under it are
  // added. A list's items that share a key are one path, the last item's, as `byElement` keeps them.
  const addAll = (rhs: unknown, nodeSchema: JsonSchema | undefined, path: Path): void => {
    const shape = sharedShape(nodeSchema, resolve, undefined, rhs);
    if (shape) {
      const children = childrenOf(shape, rhs, path);
      for (const child of shape.kind === 'map' ? children : byElement(children).values()) addAll(child.value, child.schema, [...path, child.element]);
    }
    added.push(path);
  };
  const visit = (lhs: unknown, rhs: unknown, nodeSchema: JsonSchema | undefined, path: Path): void => {
    if (lhs === undefined) {
      addAll(rhs, nodeSchema, path);
      return;
    }
    const shape = sharedShape(nodeSchema, resolve, lhs, rhs);
    if (!shape) {
      note(lhs, rhs, path, true);
      return;
    }
    const left = byElement(childrenOf(shape, lhs, path));
    const right = byElement(childrenOf(shape, rhs, path));
    for (const element of new Set([...left.keys(), ...right.keys()])) {
      const l = left.get(element);
      const r = right.get(element);
      visit(l?.value, r?.value, (r ?? l)!.schema, [...path, element]);
    }
    note(lhs, rhs, path, false);
  };
  visit(before, after, schema, []);
  return { added: FieldSet.of(added), modified: FieldSet.of(modified), removed: FieldSet.of(removed) };
}

function byElement(children: readonly Child[]): Map<PathElement, Child> {
  return new Map(children.map((child) => [child.element, child]));
}

/** The comparison without `fields` and what is under them: changes to fields a strategy resets belong to nobody. */
export function withoutFields(comparison: Comparison, fields: FieldSet): Comparison {
  return {
    added: comparison.added.recursiveDifference(fields),
    modified: comparison.modified.recursiveDifference(fields),
    removed: comparison.removed.recursiveDifference(fields),
  };
}
