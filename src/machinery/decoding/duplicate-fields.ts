/**
 * Duplicate fields in a JSON or YAML body. JSON.parse keeps the last of a repeated
 * key silently; kube's strict decoding reports each (`duplicate field "spec.replicas"`),
 * which field validation turns into a 400 or a warning.
 */
import { isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { childPath } from '../json-schema.js';

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

/** How many keys a JSON text spells out: every string followed by a colon, outside strings. */
function jsonKeyTokens(raw: string): number {
  let count = 0;
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] !== '"') continue;
    for (i++; i < raw.length && raw[i] !== '"'; i++) if (raw[i] === '\\') i++;
    let next = i + 1;
    while (next < raw.length && /\s/.test(raw[next])) next++;
    if (raw[next] === ':') count++;
  }
  return count;
}

/** How many keys the objects of a decoded value hold; walks without recursion, as the value is the client's. */
function decodedKeys(value: unknown): number {
  let count = 0;
  const pending: unknown[] = [value];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (typeof item !== 'object' || item === null) continue;
    if (!Array.isArray(item)) count += Object.keys(item).length;
    for (const child of Object.values(item)) pending.push(child);
  }
  return count;
}

/**
 * The paths of the fields a JSON or YAML document repeats within one object, in
 * document order. The document must have been decoded within the nesting bound
 * first: the walk of its YAML tree recurses. `decoded` is the document as JSON.parse or the YAML decoder read it:
 * when a JSON text spells out no more keys than that holds, nothing repeats and the
 * document is not parsed again (writes take this path every time).
 */
export function duplicateFields(raw: string, decoded?: unknown): string[] {
  if (decoded !== undefined && raw.trimStart().startsWith('{') && jsonKeyTokens(raw) === decodedKeys(decoded)) return [];
  // YAML is a superset of JSON, so one parser finds repeats in both.
  const document = parseDocument(raw, { uniqueKeys: false });
  const found: string[] = [];
  walk(document.contents, '', found);
  return found;
}
