/**
 * Duplicate fields in a JSON or YAML body. JSON.parse keeps the last of a repeated
 * key silently; kube's strict decoding reports each (`duplicate field "spec.replicas"`),
 * which field validation turns into a 400 or a warning.
 */
import { isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { childPath } from './json-schema.js';

function walk(node: Node | null | undefined, path: string, found: string[]): void {
  if (isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const child = childPath(path, key);
      if (seen.has(key)) found.push(child);
      seen.add(key);
      walk(pair.value as Node | null, child, found);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, index) => walk(item as Node | null, childPath(path, index), found));
  }
}

/** The paths of the fields a JSON or YAML document repeats within one object, in document order. */
export function duplicateFields(raw: string): string[] {
  // YAML is a superset of JSON, so one parser finds repeats in both.
  const document = parseDocument(raw, { uniqueKeys: false });
  const found: string[] = [];
  walk(document.contents, '', found);
  return found;
}
