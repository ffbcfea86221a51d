/**
 * An object's stored JSON text, split where its `metadata.resourceVersion` goes: the
 * write's statement joins the two halves around the resourceVersion it assigns, so
 * the row holds the text as written, stamped, with nothing parsed in SQL.
 */
import { knownJson } from '../machinery/caching-object.js';
import { deepFreeze, type StoredObject } from '../machinery/meta/object.js';
import { encodeJsonb } from './stored-text.js';

/** The JSON text before and after the value of `metadata.resourceVersion` (the quotes of the string are in them). */
export interface ObjectText {
  readonly head: string;
  readonly tail: string;
}

/**
 * `object`'s stored text (`encodeJsonb`), split at its resourceVersion, which it must
 * have as a string (any value: it is replaced).
 *
 * @example
 * const { head, tail } = splitObjectText(toStore(object));
 * const stored = `${head}${rv}${tail}`;
 */
export function splitObjectText(object: StoredObject): ObjectText {
  // A marker no string of the object holds, so the one place it appears is the resourceVersion's.
  for (let i = 0; ; i++) {
    const marker = `\u0002rv${i}\u0002`;
    const text = encodeJsonb({ ...object, metadata: { ...object.metadata, resourceVersion: marker } });
    const quoted = JSON.stringify(marker);
    const at = text.indexOf(quoted);
    if (at >= 0 && text.indexOf(quoted, at + quoted.length) < 0) return { head: text.slice(0, at + 1), tail: text.slice(at + quoted.length - 1) };
  }
}

/**
 * `stored`, whose text `text` was just written at `resourceVersion`, stamped with it and
 * deep-frozen, as a create returns it: its JSON encoding is then that text, which a
 * response sends as it is (`caching-object.ts`) instead of stringifying the object again.
 * Text that `encodeJsonb` escaped for the column is not `JSON.stringify`'s: without an
 * escape of U+0000 to U+000F in it, nothing was.
 */
export function writtenObject(stored: StoredObject, resourceVersion: bigint, text: ObjectText): StoredObject {
  const rv = resourceVersion.toString();
  stored.metadata.resourceVersion = rv;
  deepFreeze(stored);
  if (!text.head.includes('\\u000') && !text.tail.includes('\\u000')) knownJson(stored, `${text.head}${rv}${text.tail}`);
  return stored;
}
