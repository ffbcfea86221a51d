/**
 * `application/yaml`: objects and lists for people and `kubectl -o yaml`-style
 * clients. Like kube's, it has no stream form, so watches are never YAML.
 */
import YAML from 'yaml';
import { decodeYaml } from '../../machinery/decoding/bounded-decoding.js';
import type { Serializer } from './serializer.js';

/** YAML in and out; decoding through the bounded decoder (depth and alias limits). */
export const yamlSerializer: Serializer<'yaml'> = Object.freeze({
  format: 'yaml',
  mediaType: 'application/yaml',
  encode: (value: unknown) => YAML.stringify(value),
  decode: (raw: Buffer | string) => decodeYaml(typeof raw === 'string' ? raw : raw.toString('utf8')),
});
