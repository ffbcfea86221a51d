import { describe, expect, it } from 'vitest';
import { pipelineSchema, v1SchemaNames } from '../../apis/cairn/v1/schemas.js';
import { componentResolver, type JsonSchema } from '../json-schema.js';
import { metaSchemas } from '../types/meta-schemas.js';
import { compareObjects } from './compare.js';

const resolve = componentResolver({ ...metaSchemas, [v1SchemaNames.pipeline]: pipelineSchema });
/** A set of scalars, which neither the Pipeline nor ObjectMeta has. */
const setSchema: JsonSchema = { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' } } };

describe('compareObjects', () => {
  // A create compares with nothing before it; its additions are what comparing the other way removes.
  const created: [unknown, JsonSchema][] = [
    [{ apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'p', labels: { a: 'b' }, finalizers: [] }, spec: { replicas: 1 } }, pipelineSchema],
    [
      { spec: { steps: [{ name: 'fetch', image: 'alpine', command: ['sh'], env: [{ name: 'A', value: '1' }] }, { name: 'build' }], paused: null } },
      pipelineSchema,
    ],
    // Items sharing a key, and items without one: as a live object is read, the last of a key counts.
    [{ spec: { steps: [{ name: 'a', image: 'x' }, { name: 'a', command: ['y'] }, { image: 'no-name' }, null] } }, pipelineSchema],
    [
      {
        spec: {},
        status: {
          conditions: [
            { type: 'Ready', status: 'True' },
            { type: 'Ready', reason: 'again' },
          ],
        },
        extra: { free: [1] },
      },
      pipelineSchema,
    ],
    [{ tags: ['x', 'y', 'x'] }, setSchema],
    [{ tags: [] }, setSchema],
  ];

  it('adds from nothing what it removes to nothing', () => {
    for (const [object, schema] of created) {
      const forward = compareObjects({}, object, schema, resolve);
      const backward = compareObjects(object, {}, schema, resolve);
      expect(forward.added.paths(), JSON.stringify(object)).toEqual(backward.removed.paths());
      expect(forward.added.isEmpty).toBe(false);
      expect(forward.modified.isEmpty && forward.removed.isEmpty && backward.added.isEmpty && backward.modified.isEmpty).toBe(true);
    }
  });
});
