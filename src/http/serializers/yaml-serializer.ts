/**
 * `application/yaml`: objects and lists for people and `kubectl -o yaml`-style
 * clients. Like kube's, it has no stream form, so watches are never YAML.
 */
import YAML from 'yaml';
import { decodeYaml } from '../../machinery/decoding/bounded-decoding.js';
import { listItemsMarker, withMarker } from './list-marker.js';
import type { ListEncoder, Serializer } from './serializer.js';

/**
 * A YAML list in parts. Each item is written as the only item of a list under the same
 * key, less that key's line: at the indentation, and so with the line folding, it has in
 * the whole list.
 */
function yamlListEncoder(envelope: Readonly<Record<string, unknown>>, key: string): ListEncoder {
  const text = YAML.stringify(withMarker(envelope, key));
  const at = text.indexOf(listItemsMarker.slice(1, -1));
  const lineStart = text.lastIndexOf('\n', at) + 1;
  const lineEnd = text.indexOf('\n', at) + 1;
  return {
    needsItemsLength: false,
    head: () => text.slice(0, lineStart),
    items: (values) =>
      values
        .map((value) => {
          const alone = YAML.stringify({ [key]: [value] });
          return alone.slice(alone.indexOf('\n') + 1);
        })
        .join(''),
    tail: text.slice(lineEnd),
  };
}

/** YAML in and out; decoding through the bounded decoder (depth and alias limits). */
export const yamlSerializer: Serializer<'yaml'> = Object.freeze({
  format: 'yaml',
  mediaType: 'application/yaml',
  encode: (value: unknown) => YAML.stringify(value),
  decode: (raw: Buffer | string) => decodeYaml(typeof raw === 'string' ? raw : raw.toString('utf8')),
  listEncoder: yamlListEncoder,
});
