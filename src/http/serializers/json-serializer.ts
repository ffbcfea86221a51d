/**
 * `application/json`: the default wire format; watch streams carry one value per line.
 */
import { decodeJson } from '../../machinery/decoding/bounded-decoding.js';
import type { Serializer, StreamFramer } from './serializer.js';

const newline = Buffer.from('\n');

/** One JSON value per line, as kube's JSON stream encoder writes watch events. */
export const newlineFramer: StreamFramer = Object.freeze({
  frame: (encoded: Buffer | string) => (typeof encoded === 'string' ? `${encoded}\n` : Buffer.concat([encoded, newline])),
});

/** JSON in and out; decoding through the bounded decoder. */
export const jsonSerializer: Serializer<'json'> = Object.freeze({
  format: 'json',
  mediaType: 'application/json',
  encode: (value: unknown) => JSON.stringify(value),
  decode: (raw: Buffer | string) => decodeJson(typeof raw === 'string' ? raw : raw.toString('utf8')),
  streamFramer: newlineFramer,
});
