/**
 * `application/json`: the default wire format; watch streams carry one value per line.
 */
import { decodeJson } from '../../machinery/decoding/bounded-decoding.js';
import type { Serializer, StreamSerializer, WatchEventValue } from './serializer.js';

const newline = Buffer.from('\n');

/** One JSON value per line, as kube's JSON stream encoder writes watch events. */
const jsonStream: StreamSerializer = Object.freeze({
  mediaType: 'application/json',
  encodeEvent: (event: WatchEventValue) => JSON.stringify(event),
  frame: (encoded: Buffer | string) => (typeof encoded === 'string' ? `${encoded}\n` : Buffer.concat([encoded, newline])),
});

/** JSON in and out; decoding through the bounded decoder. */
export const jsonSerializer: Serializer<'json'> = Object.freeze({
  format: 'json',
  mediaType: 'application/json',
  encode: (value: unknown) => JSON.stringify(value),
  decode: (raw: Buffer | string) => decodeJson(typeof raw === 'string' ? raw : raw.toString('utf8')),
  streamSerializer: jsonStream,
});
