/**
 * The JSON, YAML and protobuf serializers: bounded decoding, watch streams framed as kube
 * frames them, and encoding and decoding with them (negotiation itself: negotiation.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { maxNestingDepth } from '../../machinery/decoding/bounded-decoding.js';
import { decodeBody } from '../request/decode-body.js';
import { encode } from '../response/negotiation.js';
import { jsonSerializer } from './json-serializer.js';
import { defaultSerializer, serializerForMediaType, serializerOf, serializers } from './serializers.js';
import { yamlSerializer } from './yaml-serializer.js';

const value = {
  apiVersion: 'cairn.dev/v1',
  kind: 'Pipeline',
  metadata: { name: 'p', labels: { a: '1' } },
  spec: { replicas: 0, steps: [{ name: 's', command: ['sh'] }] },
};

describe('serializers', () => {
  it.each(serializers.map((s) => [s.mediaType, s] as const))('%s round-trips a value, from text and from bytes', (_, serializer) => {
    const encoded = serializer.encode(value);
    expect(serializer.decode(encoded)).toEqual(value);
    expect(serializer.decode(Buffer.from(encoded))).toEqual(value);
  });

  it('decode within the bounds: too deep a body is a 400', () => {
    const deep = `${'['.repeat(maxNestingDepth + 1)}${']'.repeat(maxNestingDepth + 1)}`;
    for (const serializer of serializers) expect(() => serializer.decode(deep), serializer.mediaType).toThrow(expect.objectContaining({ code: 400 }));
    expect(() => jsonSerializer.decode('{"a":')).toThrow(expect.objectContaining({ code: 400 }));
  });

  it('frame JSON streams one value per line; YAML does not stream', () => {
    const stream = jsonSerializer.streamSerializer!;
    expect(stream.frame(stream.encodeEvent({ type: 'ADDED', object: {} }))).toBe('{"type":"ADDED","object":{}}\n');
    expect(stream.frame(Buffer.from('{}'))).toEqual(Buffer.from('{}\n'));
    expect(stream.mediaType).toBe('application/json');
    expect(yamlSerializer.streamSerializer).toBeUndefined();
  });

  it('frame protobuf streams as kube: a 4-byte big-endian length, then an unenveloped WatchEvent', () => {
    const stream = serializerOf('protobuf').streamSerializer!;
    expect(stream.mediaType).toBe('application/vnd.kubernetes.protobuf;stream=watch');
    const frame = stream.frame(stream.encodeEvent({ type: 'ADDED', object: value })) as Buffer;
    expect(frame.readUInt32BE(0)).toBe(frame.length - 4);
    // WatchEvent{type(1) "ADDED", object(2) RawExtension{raw(1) k8s\0…}}
    expect(frame.subarray(4, 12)).toEqual(Buffer.from([0x0a, 0x05, ...Buffer.from('ADDED'), 0x12]));
    expect(frame.includes(Buffer.from('k8s\0'))).toBe(true);
  });

  it('are found by format name and by media type, structured suffixes included', () => {
    expect(serializerOf('yaml')).toBe(yamlSerializer);
    expect(defaultSerializer).toBe(jsonSerializer);
    expect(serializerForMediaType('application/json')).toBe(jsonSerializer);
    expect(serializerForMediaType('application/merge-patch+json')).toBe(jsonSerializer);
    expect(serializerForMediaType('application/apply-patch+yaml')).toBe(yamlSerializer);
    expect(serializerForMediaType('application/vnd.kubernetes.protobuf')).toBe(serializerOf('protobuf'));
    expect(serializerForMediaType('text/plain')).toBeUndefined();
  });
});

describe('encoding and decoding through the serializers', () => {
  it('writes with the serializer of the format', () => {
    expect(encode({ a: 1 }, 'json')).toEqual({ body: '{"a":1}', contentType: 'application/json' });
    expect(encode({ a: 1 }, yamlSerializer)).toEqual({ body: 'a: 1\n', contentType: 'application/yaml' });
  });

  it('decodes accepted media types with their serializer; 415 for others', () => {
    expect(decodeBody('a: 1', 'application/yaml', ['application/json', 'application/yaml'])).toEqual({ a: 1 });
    expect(decodeBody(Buffer.from('{"a":1}'), '', ['application/json'])).toEqual({ a: 1 });
    expect(() => decodeBody('a: 1', 'application/yaml', ['application/json'])).toThrow(expect.objectContaining({ code: 415 }));
  });
});
