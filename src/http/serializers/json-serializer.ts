/**
 * `application/json`: the default wire format; watch streams carry one value per line.
 */
import { decodeJson } from '../../machinery/decoding/bounded-decoding.js';
import { listItemsMarker, withMarker } from './list-marker.js';
import type { ListEncoder, Serializer, StreamSerializer, WatchEventValue } from './serializer.js';

const newline = Buffer.from('\n');

/** One JSON value per line, as kube's JSON stream encoder writes watch events. */
const jsonStream: StreamSerializer = Object.freeze({
  mediaType: 'application/json',
  encodeEvent: (event: WatchEventValue) => JSON.stringify(event),
  frame: (encoded: Buffer | string) => (typeof encoded === 'string' ? `${encoded}\n` : Buffer.concat([encoded, newline])),
});

/**
 * A JSON list in parts; with `itemsAreJson`, the items given are JSON text already
 * (objects' stored text), written as they are.
 */
export function jsonListEncoder(envelope: Readonly<Record<string, unknown>>, key: string, itemsAreJson = false): ListEncoder {
  const text = JSON.stringify(withMarker(envelope, key));
  const encodedMarker = JSON.stringify(listItemsMarker);
  const at = text.indexOf(encodedMarker);
  return {
    needsItemsLength: false,
    head: () => text.slice(0, at),
    items(values, first) {
      if (values.length === 0) return '';
      const joined = (itemsAreJson ? (values as readonly string[]) : values.map((v) => JSON.stringify(v))).join(',');
      return first ? joined : `,${joined}`;
    },
    tail: text.slice(at + encodedMarker.length),
  };
}

/** JSON in and out; decoding through the bounded decoder. */
export const jsonSerializer: Serializer<'json'> = Object.freeze({
  format: 'json',
  mediaType: 'application/json',
  encode: (value: unknown) => JSON.stringify(value),
  decode: (raw: Buffer | string) => decodeJson(typeof raw === 'string' ? raw : raw.toString('utf8')),
  listEncoder: (envelope: Readonly<Record<string, unknown>>, key: string) => jsonListEncoder(envelope, key),
  streamSerializer: jsonStream,
});
