import { describe, expect, it } from 'vitest';
import { componentResolver, type JsonSchema } from '../json-schema.js';
import { shapeOf } from './schema-shape.js';

describe('shapeOf', () => {
  it('reads one schema object under each resolver as that resolver resolves it', () => {
    // One reference, two meanings: a shape kept for the schema alone would answer the second with the first's.
    const reference: JsonSchema = { $ref: '#/components/schemas/Steps' };
    const asListMap = componentResolver({
      Steps: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object' } },
    });
    const asAtomic = componentResolver({ Steps: { type: 'array', items: { type: 'string' } } });
    expect(shapeOf(reference, asListMap)).toEqual({ kind: 'list-map', keys: ['name'], item: { type: 'object' } });
    expect(shapeOf(reference, asAtomic)).toEqual({ kind: 'leaf' });
    // Asked again, each the same.
    expect(shapeOf(reference, asListMap).kind).toBe('list-map');
    expect(shapeOf(reference, asAtomic).kind).toBe('leaf');
    expect(shapeOf(undefined, asListMap)).toEqual({ kind: 'leaf' });
  });
});
