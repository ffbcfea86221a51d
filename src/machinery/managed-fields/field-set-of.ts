/**
 * The fields an object sets (structured-merge-diff's `ToFieldSet`): what a manager
 * owns after applying it as its configuration.
 */
import type { JsonSchema, SchemaResolver } from '../json-schema.js';
import type { Path } from './field-path.js';
import { FieldSet } from './field-set.js';
import { childrenOf, fits, shapeOf, type Problem } from './schema-shape.js';

/**
 * The set of leaves `value` sets, plus its list items and map entries: list-map items
 * by key with their fields, set items by value, atomic lists and maps as one leaf.
 * Empty objects and lists set nothing. With `problems`, list items that cannot be
 * identified are reported there and left out; without, they count by index.
 *
 * @example
 * fieldSetOf({ spec: { steps: [{ name: 'fetch' }] } }, pipelineSchema, resolve).toFieldsV1();
 * // {"f:spec":{"f:steps":{"k:{\"name\":\"fetch\"}":{".":{},"f:name":{}}}}}
 */
export function fieldSetOf(value: unknown, schema: JsonSchema, resolve: SchemaResolver, problems?: Problem[]): FieldSet {
  const paths: Path[] = [];
  const visit = (node: unknown, nodeSchema: JsonSchema | undefined, path: Path): void => {
    const shape = shapeOf(nodeSchema, resolve);
    if (shape.kind === 'leaf' || !fits(shape, node)) {
      paths.push(path);
      return;
    }
    for (const child of childrenOf(shape, node, path, problems)) {
      const childPath = [...path, child.element];
      if (child.item) paths.push(childPath);
      visit(child.value, child.schema, childPath);
    }
  };
  visit(value, schema, []);
  return FieldSet.of(paths);
}
