/**
 * Server-side apply: appliers owning fields, shared fields, 409 conflicts, force, and fields
 * an applier no longer applies.
 */
import { describe, expect, it } from 'vitest';
import { pipelineSchema, v1SchemaNames } from '../../apis/cairn/v1/schemas.js';
import { componentResolver } from '../json-schema.js';
import { metaSchemas } from '../types/meta-schemas.js';
import type { KubeObject } from '../meta/object.js';
import { applyPatch, type ApplyResult } from './apply.js';
import { fieldPath } from './field-path.js';
import { FieldSet } from './field-set.js';
import { updateManagedFields } from './update.js';
import { statusErrorOf } from '../../../test/support/status-error.js';

const resolve = componentResolver({ ...metaSchemas, [v1SchemaNames.pipeline]: pipelineSchema });
const apiVersion = 'cairn.dev/v1';
const T1 = '2024-05-01T10:00:00Z';
const T2 = '2024-05-01T11:00:00Z';
const T3 = '2024-05-01T12:00:00Z';

/** An applied configuration of the Pipeline default/ingest. */
function config(body: { metadata?: Record<string, unknown>; spec?: Record<string, unknown>; status?: Record<string, unknown> }): KubeObject {
  return { apiVersion, kind: 'Pipeline', ...body, metadata: { name: 'ingest', namespace: 'default', ...body.metadata } };
}

function apply(
  live: KubeObject | undefined,
  applied: KubeObject,
  manager: string,
  options: { force?: boolean; now?: string; resetFields?: FieldSet } = {},
): ApplyResult {
  const { force = false, now = T1, resetFields } = options;
  return applyPatch({ live, applied, manager, force, schema: pipelineSchema, resolve, apiVersion, now, ...(resetFields ? { resetFields } : {}) });
}

/** The stored object after a write: what the registry adds around the engine. */
function stored(object: KubeObject): KubeObject {
  return { ...object, metadata: { uid: 'uid-1', resourceVersion: '7', creationTimestamp: T1, ...object.metadata } };
}

function fieldsOf(object: KubeObject, manager: string): unknown {
  return object.metadata?.managedFields?.find((entry) => entry.manager === manager)?.fieldsV1;
}

const fetch = { name: 'fetch', image: 'alpine:3.20', command: ['sh', '-c', 'wget -qO- https://example.com'] };
const build = { name: 'build', image: 'golang:1.22', command: ['go', 'build'] };

describe('applyPatch', () => {
  it('creates the object and records the applier, without the metadata nobody owns', () => {
    const { object, managedFields } = apply(undefined, config({ metadata: { labels: { team: 'data' } }, spec: { replicas: 2, steps: [fetch] } }), 'kubectl');
    expect(managedFields).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion,
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:team': {} } },
          'f:spec': { 'f:replicas': {}, 'f:steps': { 'k:{"name":"fetch"}': { '.': {}, 'f:command': {}, 'f:image': {}, 'f:name': {} } } },
        },
      },
    ]);
    expect(object).toEqual({
      apiVersion,
      kind: 'Pipeline',
      metadata: { name: 'ingest', namespace: 'default', labels: { team: 'data' }, managedFields },
      spec: { replicas: 2, steps: [fetch] },
    });
  });

  it('lets two appliers own different fields of one object', () => {
    const first = stored(apply(undefined, config({ spec: { replicas: 2, steps: [fetch] } }), 'kubectl').object);
    const second = stored(apply(first, config({ metadata: { labels: { owner: 'ops' } }, spec: { paused: true } }), 'ops', { now: T2 }).object);
    expect(second.spec).toEqual({ replicas: 2, steps: [fetch], paused: true });
    expect(second.metadata?.labels).toEqual({ owner: 'ops' });
    expect(fieldsOf(second, 'ops')).toEqual({ 'f:metadata': { 'f:labels': { 'f:owner': {} } }, 'f:spec': { 'f:paused': {} } });
    expect(fieldsOf(second, 'kubectl')).toEqual(fieldsOf(first, 'kubectl'));

    // kubectl applying its configuration again leaves the fields of ops alone
    const again = apply(second, config({ spec: { replicas: 2, steps: [fetch] } }), 'kubectl', { now: T2 }).object;
    expect(again.spec).toEqual(second.spec);
    expect(again.metadata?.labels).toEqual({ owner: 'ops' });
  });

  it('shares a field an applier sets to the value it already has, and keeps it while one owner remains', () => {
    const first = stored(apply(undefined, config({ spec: { replicas: 2, paused: false } }), 'kubectl').object);
    const shared = stored(apply(first, config({ spec: { replicas: 2 } }), 'ops').object);
    expect(fieldsOf(shared, 'ops')).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect(fieldsOf(shared, 'kubectl')).toEqual({ 'f:spec': { 'f:paused': {}, 'f:replicas': {} } });

    const dropped = apply(shared, config({ spec: {} }), 'kubectl').object;
    expect(dropped.spec).toEqual({ replicas: 2 });
    expect(fieldsOf(dropped, 'kubectl')).toBeUndefined();
    expect(fieldsOf(dropped, 'ops')).toEqual({ 'f:spec': { 'f:replicas': {} } });
  });

  it('answers 409 Conflict listing the fields and their managers when values differ', () => {
    const created = stored(apply(undefined, config({ spec: { replicas: 2, steps: [fetch] } }), 'kubectl').object);
    const scaled = { ...created, spec: { ...(created.spec as object), replicas: 5 } };
    const live = stored({
      ...scaled,
      metadata: {
        ...scaled.metadata,
        managedFields: [...updateManagedFields({ old: created, updated: scaled, manager: 'hpa', schema: pipelineSchema, resolve, apiVersion, now: T2 })],
      },
    });

    const one = statusErrorOf(() => apply(live, config({ spec: { replicas: 3, steps: [fetch] } }), 'kubectl'));
    expect(one.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "hpa" using cairn.dev/v1: .spec.replicas',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "hpa" using cairn.dev/v1', field: '.spec.replicas' }] },
      code: 409,
    });

    const paused = stored(apply(live, config({ spec: { paused: true, steps: [{ name: 'fetch', image: 'alpine:3.21' }] } }), 'ops', { force: true }).object);
    const many = statusErrorOf(() => apply(paused, config({ spec: { replicas: 3, paused: false, steps: [{ ...fetch, image: 'busybox' }] } }), 'kubectl'));
    expect(many.status.message).toBe(
      [
        'Apply failed with 3 conflicts: conflicts with "hpa" using cairn.dev/v1:',
        '- .spec.replicas',
        'conflicts with "ops":',
        '- .spec.paused',
        '- .spec.steps[name="fetch"].image',
      ].join('\n'),
    );
    expect(many.status.details?.causes?.map((cause) => [cause.message, cause.field])).toEqual([
      ['conflict with "hpa" using cairn.dev/v1', '.spec.replicas'],
      ['conflict with "ops"', '.spec.paused'],
      ['conflict with "ops"', '.spec.steps[name="fetch"].image'],
    ]);
  });

  it('takes the conflicting fields with force', () => {
    const created = stored(apply(undefined, config({ spec: { replicas: 2 } }), 'kubectl').object);
    expect(statusErrorOf(() => apply(created, config({ spec: { replicas: 4 } }), 'ops')).code).toBe(409);
    const forced = apply(created, config({ spec: { replicas: 4 } }), 'ops', { force: true, now: T2 });
    expect(forced.object.spec).toEqual({ replicas: 4 });
    expect(forced.managedFields).toEqual([
      { manager: 'ops', operation: 'Apply', apiVersion, time: T2, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
    ]);
  });

  describe('a step the applier no longer applies', () => {
    const both = stored(apply(undefined, config({ spec: { steps: [fetch, build] } }), 'kubectl').object);

    it('is removed when nobody else owns it', () => {
      const { object } = apply(both, config({ spec: { steps: [fetch] } }), 'kubectl');
      expect(object.spec).toEqual({ steps: [fetch] });
      expect(fieldsOf(object, 'kubectl')).toEqual({
        'f:spec': { 'f:steps': { 'k:{"name":"fetch"}': { '.': {}, 'f:command': {}, 'f:image': {}, 'f:name': {} } } },
      });
    });

    it('stays when another applier applies it too', () => {
      const shared = stored(apply(both, config({ spec: { steps: [build] } }), 'ops').object);
      const { object } = apply(shared, config({ spec: { steps: [fetch] } }), 'kubectl');
      expect(object.spec).toEqual({ steps: [fetch, build] });
    });

    it('keeps its key and the fields another manager changed, and loses the rest', () => {
      const retagged = { ...both, spec: { steps: [fetch, { ...build, image: 'golang:1.23' }] } };
      const live = stored({
        ...retagged,
        metadata: {
          ...retagged.metadata,
          managedFields: [...updateManagedFields({ old: both, updated: retagged, manager: 'bumper', schema: pipelineSchema, resolve, apiVersion, now: T2 })],
        },
      });
      const { object } = apply(live, config({ spec: { steps: [fetch] } }), 'kubectl');
      expect(object.spec).toEqual({ steps: [fetch, { name: 'build', image: 'golang:1.23' }] });
    });

    it('goes with the whole list when it was the last item', () => {
      const { object } = apply(both, config({ spec: { replicas: 1 } }), 'kubectl');
      expect(object.spec).toEqual({ replicas: 1 });
    });
  });

  it('merges list-map items by name, keeping the items and fields it does not mention', () => {
    const live = stored(apply(undefined, config({ spec: { steps: [{ ...fetch, env: [{ name: 'MODE', value: 'fast' }] }, build] } }), 'kubectl').object);
    const { object } = apply(live, config({ spec: { steps: [{ name: 'fetch', env: [{ name: 'DEBUG', value: '1' }] }] } }), 'ops');
    expect(object.spec).toEqual({
      steps: [
        {
          ...fetch,
          env: [
            { name: 'MODE', value: 'fast' },
            { name: 'DEBUG', value: '1' },
          ],
        },
        build,
      ],
    });
    expect(fieldsOf(object, 'ops')).toEqual({
      'f:spec': { 'f:steps': { 'k:{"name":"fetch"}': { '.': {}, 'f:env': { 'k:{"name":"DEBUG"}': { '.': {}, 'f:name': {}, 'f:value': {} } }, 'f:name': {} } } },
    });
  });

  it('orders items as applied, live-only items staying after the item before them', () => {
    const a = { name: 'a' };
    const b = { name: 'b' };
    const x = { name: 'x' };
    const live = stored(apply(undefined, config({ spec: { steps: [a, x, b] } }), 'kubectl').object);
    expect(apply(live, config({ spec: { steps: [b, a] } }), 'ops').object.spec).toEqual({ steps: [x, b, a] });
    expect(apply(live, config({ spec: { steps: [{ name: 'c' }, a] } }), 'ops').object.spec).toEqual({ steps: [{ name: 'c' }, a, x, b] });
  });

  it('replaces an atomic list whole and owns it as one field', () => {
    const live = stored(apply(undefined, config({ spec: { steps: [fetch] } }), 'kubectl').object);
    const { object } = apply(live, config({ spec: { steps: [{ ...fetch, command: ['echo'] }] } }), 'kubectl');
    expect(object.spec).toEqual({ steps: [{ ...fetch, command: ['echo'] }] });

    const error = statusErrorOf(() => apply(live, config({ spec: { steps: [{ name: 'fetch', command: ['sh'] }] } }), 'ops'));
    expect(error.status.details?.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.spec.steps[name="fetch"].command' },
    ]);
  });

  it('removes map entries the applier stopped applying, and the map when it empties', () => {
    const live = stored(apply(undefined, config({ metadata: { labels: { team: 'data', tier: 'gold' } } }), 'kubectl').object);
    expect(apply(live, config({ metadata: { labels: { team: 'data' } } }), 'kubectl').object.metadata?.labels).toEqual({ team: 'data' });
    expect(apply(live, config({}), 'kubectl').object.metadata).not.toHaveProperty('labels');
  });

  it('keeps what it was never told to own', () => {
    const live = stored({ ...config({ spec: { replicas: 1 } }), status: { phase: 'Running' } });
    const { object, managedFields } = apply(live, config({ spec: { paused: true } }), 'kubectl');
    expect(object).toMatchObject({ spec: { replicas: 1, paused: true }, status: { phase: 'Running' }, metadata: { uid: 'uid-1', resourceVersion: '7' } });
    expect(managedFields.map((entry) => entry.manager)).toEqual(['kubectl']);
  });

  it('loses nothing of a stored list it cannot identify, and replaces duplicates of an item it names', () => {
    const orphan = { image: 'no-name' };
    const live = stored(config({ metadata: { finalizers: ['a', 'b', 'a'] }, spec: { steps: [orphan, fetch] } }));
    expect(apply(live, config({ spec: { replicas: 1 } }), 'kubectl').object).toMatchObject({
      metadata: { finalizers: ['a', 'b', 'a'] },
      spec: { replicas: 1, steps: [orphan, fetch] },
    });
    expect(apply(live, config({ metadata: { finalizers: ['a'] } }), 'kubectl').object.metadata?.finalizers).toEqual(['a', 'b']);
  });

  it('owns nothing through fields the endpoint resets', () => {
    const resetFields = FieldSet.of([fieldPath('status')]);
    const { managedFields } = apply(undefined, config({ spec: { replicas: 1 }, status: { phase: 'Running' } }), 'kubectl', { resetFields });
    expect(managedFields[0]?.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
  });

  it('keeps the live object, and its entry time, when an apply changes nothing', () => {
    const live = stored(apply(undefined, config({ spec: { replicas: 1 } }), 'kubectl').object);
    const again = apply(live, config({ spec: { replicas: 1 } }), 'kubectl', { now: T2 });
    expect(again.object).toEqual(live);
    expect(again.managedFields.map((entry) => entry.time)).toEqual([T1]);
  });

  it('refreshes the time when an apply changes only what the manager owns', () => {
    const live = stored(apply(undefined, config({ spec: { replicas: 1, runnerClassName: 'small' } }), 'kubectl').object);
    const shared = stored(apply(live, config({ spec: { replicas: 1 } }), 'ops', { now: T2 }).object);
    const disowned = apply(shared, config({ spec: { runnerClassName: 'small' } }), 'kubectl', { now: T3 });
    expect(disowned.object.spec).toEqual(shared.spec);
    expect(disowned.managedFields.map(({ manager, time }) => ({ manager, time }))).toEqual([
      { manager: 'ops', time: T2 },
      { manager: 'kubectl', time: T3 },
    ]);
  });

  it.each<[string, KubeObject, string]>([
    ['managedFields', { ...config({}), metadata: { name: 'ingest', managedFields: [] } }, 'metadata.managedFields must be nil'],
    [
      'another version',
      { ...config({}), apiVersion: 'cairn.dev/v1beta1' },
      'Incorrect version specified in apply patch. Specified patch version: cairn.dev/v1beta1, expected: cairn.dev/v1',
    ],
    [
      'duplicate steps',
      config({ spec: { steps: [{ name: 'a' }, { name: 'a' }] } }),
      'failed to create typed patch object (default/ingest; cairn.dev/v1, Kind=Pipeline): .spec.steps: duplicate entries for key [name="a"]',
    ],
    [
      'a step without name',
      config({ spec: { steps: [{ name: 'a', env: [{ value: 'x' }] }] } }),
      'failed to create typed patch object (default/ingest; cairn.dev/v1, Kind=Pipeline): .spec.steps[name="a"].env: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    ],
  ])('refuses a configuration with %s (400)', (_, applied, message) => {
    const error = statusErrorOf(() => apply(undefined, applied, 'kubectl'));
    expect(error.code).toBe(400);
    expect(error.status.message).toBe(message);
  });
});
