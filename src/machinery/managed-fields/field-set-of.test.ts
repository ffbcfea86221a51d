/**
 * The set of fields an object holds, computed from its schema as structured-merge-diff
 * computes it.
 */
import { describe, expect, it } from 'vitest';
import { pipelineSchema, v1SchemaNames } from '../../apis/cairn/v1/schemas.js';
import { componentResolver } from '../json-schema.js';
import { metaSchemas } from '../types/meta-schemas.js';
import { fieldSetOf } from './field-set-of.js';
import { formatPath } from './field-path.js';
import type { Problem } from './schema-shape.js';

const resolve = componentResolver({ ...metaSchemas, [v1SchemaNames.pipeline]: pipelineSchema });
const fieldsV1 = (value: unknown) => fieldSetOf(value, pipelineSchema, resolve).toFieldsV1();

describe('fieldSetOf', () => {
  it('lists leaves, list-map items by key, set items by value, atomic lists whole', () => {
    const pipeline = {
      apiVersion: 'cairn.dev/v1',
      kind: 'Pipeline',
      metadata: {
        name: 'ingest',
        labels: { team: 'data' },
        finalizers: ['cairn.dev/logs'],
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'u-1' }],
      },
      spec: {
        replicas: 3,
        steps: [{ name: 'fetch', image: 'alpine:3.20', command: ['sh', '-c', 'wget'], env: [{ name: 'MODE', value: 'fast' }] }],
      },
    };
    expect(fieldsV1(pipeline)).toEqual({
      'f:apiVersion': {},
      'f:kind': {},
      'f:metadata': {
        'f:finalizers': { 'v:"cairn.dev/logs"': {} },
        'f:labels': { 'f:team': {} },
        'f:name': {},
        // OwnerReference is an atomic map: the item is owned whole
        'f:ownerReferences': { 'k:{"uid":"u-1"}': {} },
      },
      'f:spec': {
        'f:replicas': {},
        'f:steps': {
          'k:{"name":"fetch"}': {
            '.': {},
            'f:command': {},
            'f:env': { 'k:{"name":"MODE"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
            'f:image': {},
            'f:name': {},
          },
        },
      },
    });
  });

  it('sets nothing with empty objects and lists, and treats undescribed fields as leaves', () => {
    expect(fieldsV1({ metadata: { labels: {} }, spec: { steps: [] } })).toEqual({});
    expect(fieldsV1({ spec: { extra: { a: 1 }, replicas: 'three' } })).toEqual({ 'f:spec': { 'f:extra': {}, 'f:replicas': {} } });
    expect(fieldsV1({ spec: { steps: 'not a list' } })).toEqual({ 'f:spec': { 'f:steps': {} } });
  });

  it('reads list and map types beside a reference as kube writes them', () => {
    const wrapped = componentResolver({ Step: { type: 'object', properties: { name: { type: 'string' } } } });
    const schema = {
      type: 'object',
      properties: {
        steps: {
          type: 'array',
          items: { allOf: [{ $ref: '#/components/schemas/Step' }] },
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
        },
        only: { allOf: [{ $ref: '#/components/schemas/Step' }], 'x-kubernetes-map-type': 'atomic' },
      },
    } as const;
    expect(fieldSetOf({ steps: [{ name: 'a' }], only: { name: 'b' } }, schema, wrapped).toFieldsV1()).toEqual({
      'f:only': {},
      'f:steps': { 'k:{"name":"a"}': { '.': {}, 'f:name': {} } },
    });
  });

  it('reports list items it cannot identify, as kube words it', () => {
    const problems: Problem[] = [];
    const set = fieldSetOf(
      { spec: { steps: [{ image: 'x' }, { name: 'a' }, { name: 'a' }, 'text'] }, metadata: { finalizers: ['f', 'f', { x: 1 }] } },
      pipelineSchema,
      resolve,
      problems,
    );
    expect(problems.map(({ path, message }) => `${formatPath(path)}: ${message}`)).toEqual([
      '.spec.steps: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
      '.spec.steps: duplicate entries for key [name="a"]',
      '.spec.steps: element 3: associative list with keys may not have non-map elements',
      '.metadata.finalizers: duplicate entries for key [="f"]',
      ".metadata.finalizers: element 2: associative list without keys has an element that's a map type",
    ]);
    expect(set.toFieldsV1()).toEqual({
      'f:metadata': { 'f:finalizers': { 'v:"f"': {} } },
      'f:spec': { 'f:steps': { 'k:{"name":"a"}': { '.': {}, 'f:name': {} } } },
    });
  });
});
