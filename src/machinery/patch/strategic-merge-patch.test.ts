/**
 * Strategic merge patch checked against kube's own test tables, with its directives and merge
 * keys.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { pipelineSchema, v1SchemaNames } from '../../apis/cairn/v1/schemas.js';
import { componentResolver, type JsonSchema } from '../json-schema.js';
import { metaSchemas } from '../types/meta-schemas.js';
import { deepFreeze } from '../meta/object.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import { statusErrorOf } from '../../../test/support/status-error.js';

// The schema of kube's test struct MergeItem (strategicpatch/patch_test.go and
// testdata/swagger-merge-item.json), as OpenAPI v3 components.
const ref = (name: string): JsonSchema => ({ allOf: [{ $ref: `#/components/schemas/${name}` }] });
const mergeList = (items: JsonSchema, strategy = 'merge'): JsonSchema => ({
  type: 'array',
  items,
  'x-kubernetes-patch-strategy': strategy,
  'x-kubernetes-patch-merge-key': 'name',
});
const scalars = {
  name: { type: 'string' },
  value: { type: 'string' },
  other: { type: 'string' },
  simpleMap: { type: 'object', additionalProperties: { type: 'string' } },
  mergingIntList: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-patch-strategy': 'merge' },
  mergingList: mergeList(ref('mergeItem')),
  nonMergingList: { type: 'array', items: ref('mergeItem') },
} satisfies Record<string, JsonSchema>;
const resolveMergeItem = componentResolver({
  mergeItem: {
    type: 'object',
    properties: {
      ...scalars,
      nonMergingIntList: { type: 'array', items: { type: 'integer' } },
      mergeItemPtr: mergeList(ref('mergeItem')),
      replacingItem: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-patch-strategy': 'replace' },
      retainKeysMap: { ...ref('retainKeysMergeItem'), 'x-kubernetes-patch-strategy': 'retainKeys' },
      retainKeysMergingList: mergeList(ref('mergeItem'), 'merge,retainKeys'),
    },
  },
  retainKeysMergeItem: { type: 'object', properties: scalars },
});
const mergeItem = ref('mergeItem');

const patchMergeItem = (original: unknown, patch: unknown) => applyStrategicMergePatch(original as Record<string, unknown>, patch, mergeItem, resolveMergeItem);

/**
 * kube's test cases as data, in its shape: `twoWay` applied to `original` gives
 * `twoWayResult` (or `modified`), `threeWay` applied to `current` gives `result`.
 */
interface KubeCase {
  description: string;
  original?: unknown;
  twoWay?: unknown;
  modified?: unknown;
  twoWayResult?: unknown;
  current?: unknown;
  threeWay?: unknown;
  result?: unknown;
  expectedError?: string;
}

// kube's own cases live beside this file as data.
const kubeCases = parse(readFileSync(new URL('./strategic-merge-patch.cases.yaml', import.meta.url), 'utf8')) as Record<string, KubeCase[]>;

function applications(cases: readonly KubeCase[]): [string, unknown, unknown, KubeCase][] {
  return cases.flatMap((c) => [
    ...(c.twoWay === undefined ? [] : [[`${c.description} (two-way)`, c.original ?? {}, c.twoWay, c] as [string, unknown, unknown, KubeCase]]),
    ...(c.threeWay === undefined ? [] : [[`${c.description} (three-way)`, c.current, c.threeWay, c] as [string, unknown, unknown, KubeCase]]),
  ]);
}

describe('applyStrategicMergePatch follows kube on its test tables', () => {
  it.each(Object.values(kubeCases).flatMap(applications))('%s', (name, original, patch, c) => {
    if (c.expectedError) {
      expect(statusErrorOf(() => patchMergeItem(original, patch)).message).toContain(c.expectedError);
      return;
    }
    const expected = name.endsWith('(two-way)') ? (c.twoWayResult ?? c.modified) : c.result;
    expect(patchMergeItem(original, patch)).toStrictEqual(expected);
  });
});

describe('applyStrategicMergePatch rejects what kube rejects', () => {
  it.each<[string, unknown, unknown, number, string]>([
    ['an unknown $patch in a map', { simpleMap: { a: '1' } }, { simpleMap: { $patch: 'drop' } }, 422, 'unknown patch type: drop in map: map[$patch:drop]'],
    [
      '$patch: merge in a map (only list items name it, and kube refuses it there too)',
      { simpleMap: {} },
      { simpleMap: { $patch: 'merge' } },
      422,
      'unknown patch type: merge',
    ],
    [
      '$patch: merge in a list',
      { mergingList: [{ name: 'a' }] },
      { mergingList: [{ $patch: 'merge' }] },
      422,
      'merging lists cannot yet be specified in the patch',
    ],
    [
      'an unknown $patch in a list item',
      { mergingList: [{ name: 'a' }] },
      { mergingList: [{ name: 'a', $patch: 'keep' }] },
      422,
      'unknown patch type: keep in map: map[$patch:keep name:a]',
    ],
    [
      '$patch: delete without the merge key',
      { mergingList: [{ name: 'a' }] },
      { mergingList: [{ $patch: 'delete' }] },
      422,
      'map: map[$patch:delete] does not contain declared merge key: name',
    ],
    ['$retainKeys that is not a list', { retainKeysMap: { name: 'a' } }, { retainKeysMap: { $retainKeys: 'name' } }, 400, 'invalid patch format of retainKeys'],
    [
      'a field $retainKeys does not retain',
      { retainKeysMap: { name: 'a' } },
      { retainKeysMap: { $retainKeys: ['name'], value: 'b' } },
      400,
      'invalid patch format of retainKeys',
    ],
    ['$setElementOrder without a field', { mergingIntList: [1] }, { $setElementOrder: [1] }, 400, 'invalid patch format of setElementOrder list'],
    [
      '$deleteFromPrimitiveList with a misspelt prefix',
      { mergingIntList: [1] },
      { '$deleteFromPrimitiveLists/mergingIntList': [1] },
      400,
      'invalid patch format of primitive list',
    ],
    [
      '$setElementOrder that is not a list',
      { mergingIntList: [1] },
      { '$setElementOrder/mergingIntList': 1 },
      422,
      'expected a []interface {}, but received a int64',
    ],
    [
      '$setElementOrder items without the merge key',
      { mergingList: [{ name: 'a' }] },
      { '$setElementOrder/mergingList': [{ value: 'a' }] },
      422,
      'does not contain declared merge key: name',
    ],
    ['a list of lists', { mergingIntList: [1] }, { mergingIntList: [[2]] }, 422, 'list element types are not identical: [[1] [[2]]]'],
    ['a merge list of lists', { mergingIntList: [] }, { mergingIntList: [[2]] }, 422, 'lists of lists are not supported'],
    ['a merge list of mixed items', { mergingIntList: [1] }, { mergingIntList: ['two'] }, 422, 'list element types are not identical'],
    ['a patch that is not an object', {}, [{ op: 'add' }], 400, 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
  ])('%s', (_name, original, patch, code, message) => {
    const error = statusErrorOf(() => patchMergeItem(original, patch));
    expect(error.status.code).toBe(code);
    expect(error.status.reason).toBe(code === 400 ? 'BadRequest' : 'Invalid');
    expect(error.message).toContain(message);
  });
});

describe('applyStrategicMergePatch on the Pipeline schema', () => {
  const resolve = componentResolver({ ...metaSchemas, [v1SchemaNames.pipeline]: pipelineSchema });
  const patchPipeline = (original: unknown, patch: unknown) => applyStrategicMergePatch(original as Record<string, unknown>, patch, pipelineSchema, resolve);
  const pipeline = parse(`
apiVersion: cairn.dev/v1
kind: Pipeline
metadata:
  name: ingest
  labels: {team: data, tier: batch}
  finalizers: [cairn.dev/logs]
  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: u1}]
spec:
  replicas: 3
  steps:
  - name: fetch
    image: alpine:3.20
    command: [sh, -c, wget -qO- https://example.com]
    env: [{name: MODE, value: fast}, {name: LEVEL, value: '1'}]
  - {name: parse, image: alpine:3.20}
  - {name: load, image: alpine:3.20}
status:
  conditions:
  - {type: Ready, status: 'False', reason: Scaling}
  - {type: Progressing, status: 'True'}
`) as Record<string, unknown>;

  it('applies kubectl apply’s patch for a changed step, keeping the other steps and fields', () => {
    const patched = patchPipeline(pipeline, {
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
      spec: {
        '$setElementOrder/steps': [{ name: 'fetch' }, { name: 'parse' }, { name: 'load' }],
        steps: [{ name: 'parse', image: 'alpine:3.21' }],
      },
    }) as { spec: { steps: unknown[] }; metadata: Record<string, unknown> };
    expect(patched.spec.steps).toStrictEqual([
      (pipeline.spec as { steps: unknown[] }).steps[0],
      { name: 'parse', image: 'alpine:3.21' },
      { name: 'load', image: 'alpine:3.20' },
    ]);
    expect(patched.metadata.annotations).toStrictEqual({ 'kubectl.kubernetes.io/last-applied-configuration': '{}' });
    expect(patched.metadata.labels).toStrictEqual({ team: 'data', tier: 'batch' });
  });

  it('removes a step kubectl apply deletes and adds one in the applied order', () => {
    const patched = patchPipeline(pipeline, {
      spec: {
        '$setElementOrder/steps': [{ name: 'fetch' }, { name: 'store' }, { name: 'load' }],
        steps: [
          { name: 'store', image: 'minio' },
          { name: 'parse', $patch: 'delete' },
        ],
      },
    }) as { spec: { steps: { name: string }[] } };
    expect(patched.spec.steps.map((step) => step.name)).toStrictEqual(['fetch', 'store', 'load']);
  });

  it('merges env by name inside a step and replaces the atomic command', () => {
    const patched = patchPipeline(pipeline, {
      spec: {
        '$setElementOrder/steps': [{ name: 'fetch' }, { name: 'parse' }, { name: 'load' }],
        steps: [
          {
            name: 'fetch',
            command: ['sh', '-c', 'curl https://example.com'],
            '$setElementOrder/env': [{ name: 'DEBUG' }, { name: 'MODE' }, { name: 'LEVEL' }],
            env: [
              { name: 'DEBUG', value: 'true' },
              { name: 'MODE', value: 'slow' },
            ],
          },
        ],
      },
    }) as { spec: { steps: Record<string, unknown>[] } };
    expect(patched.spec.steps[0]).toStrictEqual({
      name: 'fetch',
      image: 'alpine:3.20',
      command: ['sh', '-c', 'curl https://example.com'],
      env: [
        { name: 'DEBUG', value: 'true' },
        { name: 'MODE', value: 'slow' },
        { name: 'LEVEL', value: '1' },
      ],
    });
  });

  it('merges ObjectMeta like kube: finalizers as a set, ownerReferences by uid, labels as a map', () => {
    const patched = patchPipeline(pipeline, {
      metadata: {
        labels: { tier: null, stage: 'prod' },
        finalizers: ['example.com/cleanup'],
        ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 'other', uid: 'u2' }],
      },
    }) as { metadata: Record<string, unknown> };
    expect(patched.metadata.labels).toStrictEqual({ team: 'data', stage: 'prod' });
    // Without $setElementOrder a new item no server item precedes in the patch goes first, as in kube.
    expect(patched.metadata.finalizers).toStrictEqual(['example.com/cleanup', 'cairn.dev/logs']);
    expect(patched.metadata.ownerReferences).toStrictEqual([
      { apiVersion: 'v1', kind: 'Secret', name: 'other', uid: 'u2' },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u1' },
    ]);
    const released = patchPipeline(pipeline, { metadata: { '$deleteFromPrimitiveList/finalizers': ['cairn.dev/logs'] } }) as {
      metadata: Record<string, unknown>;
    };
    expect(released.metadata.finalizers).toStrictEqual([]);
  });

  it('merges status conditions by type', () => {
    const patched = patchPipeline(pipeline, { status: { conditions: [{ type: 'Ready', status: 'True', reason: null }] } }) as {
      status: { conditions: unknown[] };
    };
    expect(patched.status.conditions).toStrictEqual([
      { type: 'Ready', status: 'True' },
      { type: 'Progressing', status: 'True' },
    ]);
  });

  it('replaces the steps with $patch: replace', () => {
    const patched = patchPipeline(pipeline, { spec: { steps: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] } }) as {
      spec: { steps: unknown[] };
    };
    expect(patched.spec.steps).toStrictEqual([{ name: 'only', image: 'x' }]);
  });
});

describe('applyStrategicMergePatch properties', () => {
  const json = fc.jsonValue({ maxDepth: 3 });
  // deepCopy (structuredClone) turns an own `__proto__` field into the prototype, so keep it out.
  const object = fc.dictionary(
    fc.string().filter((key) => key !== '__proto__'),
    json,
    { noNullPrototype: true },
  );
  const names = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 8 });

  it('an empty patch changes nothing', () => {
    fc.assert(
      fc.property(object, (original) => {
        expect(patchMergeItem(original, {})).toStrictEqual(original);
      }),
    );
  });

  // MergeItems three levels deep, with names that collide so lists merge.
  const mergeItemFields = {
    name: fc.constantFrom('a', 'b', 'c'),
    value: fc.oneof(fc.string({ maxLength: 2 }), fc.constant(null)),
    simpleMap: fc.dictionary(fc.constantFrom('k1', 'k2'), fc.oneof(fc.string({ maxLength: 2 }), fc.constant(null)), {
      noNullPrototype: true,
    }),
    mergingIntList: fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 4 }),
  };
  const leaf = fc.record(mergeItemFields, { requiredKeys: ['name'], noNullPrototype: true });
  const withLists = (items: fc.Arbitrary<Record<string, unknown>>) =>
    fc.record(
      { ...mergeItemFields, mergingList: fc.array(items, { maxLength: 3 }), nonMergingList: fc.array(items, { maxLength: 2 }) },
      { requiredKeys: ['name'], noNullPrototype: true },
    );
  const mergeItems = withLists(withLists(leaf));
  const frozenInside = (value: unknown): boolean =>
    typeof value === 'object' && value !== null && (Object.isFrozen(value) || Object.values(value).some(frozenInside));

  it('never mutates its inputs and shares nothing with them', () => {
    fc.assert(
      fc.property(mergeItems, mergeItems, (original, patch) => {
        const before = structuredClone([original, patch]);
        const result = patchMergeItem(deepFreeze(original), deepFreeze(patch));
        expect([original, patch]).toStrictEqual(before);
        expect(frozenInside(result)).toBe(false);
      }),
    );
  });

  it('orders a merged list as $setElementOrder says when it names every item', () => {
    fc.assert(
      fc.property(
        names.chain((original) => fc.tuple(fc.constant(original), fc.shuffledSubarray(original), names)),
        ([original, changed, order]) => {
          const all = [...new Set([...order, ...original])];
          const patched = patchMergeItem(
            { mergingList: original.map((name) => ({ name, value: 'old' })) },
            {
              '$setElementOrder/mergingList': all.map((name) => ({ name })),
              mergingList: all.filter((name) => changed.includes(name) || !original.includes(name)).map((name) => ({ name, value: 'new' })),
            },
          ) as { mergingList: { name: string }[] };
          expect(patched.mergingList.map((item) => item.name)).toStrictEqual(all);
        },
      ),
    );
  });
});
