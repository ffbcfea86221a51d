/**
 * Lists written in chunks: stored text written as it is, with commas only between items.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../machinery/meta/object.js';
import { partialObjectMetadata, partialObjectMetadataList } from '../../machinery/types/partial-object-metadata.js';
import { toTable, type TableColumn } from '../../machinery/types/table.js';
import { serializerOf } from './serializers.js';

const pipeline = (i: number): KubeObject => ({
  apiVersion: 'cairn.dev/v1',
  kind: 'Pipeline',
  metadata: {
    name: `p-${i}`,
    namespace: 'ns',
    uid: `uid-${i}`,
    resourceVersion: String(10 + i),
    creationTimestamp: '2026-11-27T00:00:00Z',
    labels: { tier: i % 2 ? 'web' : 'db', 'cairn.dev/ü': 'ünïcode' },
    annotations: { long: 'x '.repeat(60 + i), multiline: 'first line\n  indented\n\nafter a blank line\n', quote: 'she said: "yes"' },
  },
  spec: { replicas: i, runnerClassName: 'standard', steps: [{ name: 'build', command: ['sh', '-c', 'echo "a: b" # not a comment'] }] },
});

const columns: TableColumn[] = [
  { name: 'Name', type: 'string', description: 'the name', priority: 0, cell: (o) => o.metadata?.name },
  { name: 'Created', type: 'date', description: 'age', priority: 0, cell: (o) => o.metadata?.creationTimestamp },
];

/** What a list streamed in `chunks` writes, as bytes. */
function streamed(format: 'json' | 'yaml' | 'protobuf', envelope: Record<string, unknown>, key: string, chunks: unknown[][]): Buffer {
  const encoder = serializerOf(format).listEncoder(envelope, key);
  const parts = chunks.map((chunk, i) => encoder.items(chunk, i === 0));
  const length = parts.reduce((sum, p) => sum + Buffer.byteLength(p), 0);
  return Buffer.concat([encoder.head(encoder.needsItemsLength ? length : undefined), ...parts, encoder.tail].map((p) => Buffer.from(p)));
}

const objects = Array.from({ length: 7 }, (_, i) => pipeline(i));
const chunked = <T>(items: T[]): T[][] => [items.slice(0, 3), items.slice(3, 5), items.slice(5)];
const listMeta = { resourceVersion: '99' };

describe('a list written in chunks', () => {
  it.each(['json', 'yaml', 'protobuf'] as const)('in %s is byte for byte the whole list', (format) => {
    const whole = { apiVersion: 'cairn.dev/v1', kind: 'PipelineList', metadata: listMeta, items: objects };
    const expected = Buffer.from(serializerOf(format).encode(whole));
    expect(streamed(format, { ...whole, items: [] }, 'items', chunked(objects))).toEqual(expected);
  });

  it.each(['json', 'yaml', 'protobuf'] as const)('as PartialObjectMetadataList in %s is byte for byte the whole list', (format) => {
    const whole = partialObjectMetadataList(objects, listMeta);
    const items = objects.map((o) => partialObjectMetadata(o.metadata, 'v1'));
    const expected = Buffer.from(serializerOf(format).encode(whole));
    expect(streamed(format, partialObjectMetadataList([], listMeta), 'items', chunked(items))).toEqual(expected);
  });

  it.each(['json', 'yaml'] as const)('as a Table in %s is byte for byte the whole table', (format) => {
    const options = { version: 'v1' as const, includeObject: 'Metadata' as const, now: Date.parse('2026-11-27T01:00:00Z') };
    const whole = toTable(columns, objects, listMeta, options);
    const expected = Buffer.from(serializerOf(format).encode(whole));
    expect(streamed(format, toTable(columns, [], listMeta, options), 'rows', chunked(whole.rows))).toEqual(expected);
  });

  it('in JSON writes stored text as it is, with commas only between items', () => {
    const encoder = serializerOf('json').listEncoder({ kind: 'L', items: [] }, 'items');
    expect([encoder.head(), encoder.items([{ a: 1 }], true), encoder.items([], false), encoder.items([{ b: 2 }, 3], false), encoder.tail].join('')).toBe(
      '{"kind":"L","items":[{"a":1},{"b":2},3]}',
    );
  });
});
