/**
 * managedFields after a create or an update: which manager owns each field, as kube records
 * it.
 */
import { describe, expect, it } from 'vitest';
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import { pipelineSchema, v1SchemaNames } from '../../apis/cairn/v1/schemas.js';
import { componentResolver } from '../json-schema.js';
import { metaSchemas } from '../types/meta-schemas.js';
import type { KubeObject } from '../meta/object.js';
import { applyPatch } from './apply.js';
import { managedFieldsProblem, withManagedFields } from './managed-fields.js';
import { updateManagedFields, type UpdateRequest } from './update.js';

const resolve = componentResolver({ ...metaSchemas, [v1SchemaNames.pipeline]: pipelineSchema });
const apiVersion = 'cairn.dev/v1';
const T1 = '2024-05-01T10:00:00Z';
const T2 = '2024-05-01T11:00:00Z';
const T3 = '2024-05-01T12:00:00Z';

const fetch = { name: 'fetch', image: 'alpine:3.20', command: ['sh', '-c', 'wget'] };
const created: KubeObject = {
  apiVersion,
  kind: 'Pipeline',
  metadata: { name: 'ingest', namespace: 'default', uid: 'uid-1', resourceVersion: '1', generation: 1, creationTimestamp: T1, labels: { team: 'data' } },
  spec: { replicas: 1, steps: [fetch] },
};

type Write = Partial<UpdateRequest> & Pick<UpdateRequest, 'old' | 'updated' | 'manager'>;

/** Records a write and returns the object as stored with its managedFields. */
function write(request: Write): KubeObject {
  const entries = updateManagedFields({ schema: pipelineSchema, resolve, apiVersion, now: T1, ...request });
  return withManagedFields(request.updated, entries);
}

function entries(object: KubeObject): ManagedFieldsEntry[] {
  return object.metadata?.managedFields ?? [];
}

function edit(object: KubeObject, change: (copy: KubeObject & { spec: Record<string, unknown>; status?: Record<string, unknown> }) => void): KubeObject {
  const copy = structuredClone(object) as KubeObject & { spec: Record<string, unknown> };
  change(copy);
  return copy;
}

describe('updateManagedFields', () => {
  it('gives a create every field it set, as kube records it for custom resources', () => {
    expect(entries(write({ old: undefined, updated: created, manager: 'kubectl-create' }))).toEqual([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion,
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { '.': {}, 'f:team': {} } },
          'f:spec': { '.': {}, 'f:replicas': {}, 'f:steps': { '.': {}, 'k:{"name":"fetch"}': { '.': {}, 'f:command': {}, 'f:image': {}, 'f:name': {} } } },
        },
      },
    ]);
  });

  it('moves a changed field to its writer and leaves the rest with its owner', () => {
    const old = write({ old: undefined, updated: created, manager: 'kubectl-create' });
    const scaled = write({ old, updated: edit(old, (o) => (o.spec.replicas = 3)), manager: 'kubectl-scale', subresource: 'scale', now: T2 });
    expect(entries(scaled).map(({ manager, subresource, time, fieldsV1 }) => ({ manager, subresource, time, fieldsV1 }))).toEqual([
      {
        manager: 'kubectl-create',
        subresource: undefined,
        time: T1,
        fieldsV1: {
          'f:metadata': { 'f:labels': { '.': {}, 'f:team': {} } },
          'f:spec': { '.': {}, 'f:steps': { '.': {}, 'k:{"name":"fetch"}': { '.': {}, 'f:command': {}, 'f:image': {}, 'f:name': {} } } },
        },
      },
      { manager: 'kubectl-scale', subresource: 'scale', time: T2, fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
    ]);
  });

  it('takes fields from an applier, and forgets fields removed for everyone', () => {
    const applied = applyPatch({
      live: undefined,
      applied: { apiVersion, kind: 'Pipeline', metadata: { name: 'ingest' }, spec: { replicas: 2, paused: true } },
      manager: 'kubectl',
      force: false,
      schema: pipelineSchema,
      resolve,
      apiVersion,
      now: T1,
    }).object;
    const edited = write({ old: applied, updated: edit(applied, (o) => ((o.spec.replicas = 4), delete o.spec.paused)), manager: 'kubectl-edit', now: T2 });
    expect(entries(edited).map(({ manager, operation, fieldsV1 }) => ({ manager, operation, fieldsV1 }))).toEqual([
      { manager: 'kubectl-edit', operation: 'Update', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
    ]);
  });

  it('merges the writes of one manager at one apiVersion, and keeps other versions apart', () => {
    const old = write({ old: undefined, updated: created, manager: 'kubectl-create' });
    const once = write({ old, updated: edit(old, (o) => (o.spec.paused = true)), manager: 'ctl', now: T2 });
    const twice = write({ old: once, updated: edit(once, (o) => (o.spec.runnerClassName = 'big')), manager: 'ctl', now: T3 });
    expect(entries(twice).find((e) => e.manager === 'ctl')).toEqual({
      manager: 'ctl',
      operation: 'Update',
      apiVersion,
      time: T3,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:paused': {}, 'f:runnerClassName': {} } },
    });
    const beta = write({ old: twice, updated: edit(twice, (o) => (o.spec.replicas = 9)), manager: 'ctl', apiVersion: 'cairn.dev/v1beta1', now: T3 });
    expect(
      entries(beta)
        .filter((e) => e.manager === 'ctl')
        .map((e) => [e.apiVersion, e.fieldsV1]),
    ).toEqual([
      ['cairn.dev/v1', { 'f:spec': { 'f:paused': {}, 'f:runnerClassName': {} } }],
      ['cairn.dev/v1beta1', { 'f:spec': { 'f:replicas': {} } }],
    ]);
  });

  it('keeps the entries and their times when nothing changed', () => {
    const old = write({ old: undefined, updated: created, manager: 'kubectl-create' });
    expect(entries(write({ old, updated: structuredClone(old), manager: 'ctl', now: T2 }))).toEqual(entries(old));
  });

  it('records a status write under its subresource', () => {
    const old = write({ old: undefined, updated: created, manager: 'kubectl-create' });
    const updated = edit(old, (o) => (o.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] }));
    const entry = entries(write({ old, updated, manager: 'cairn-controller', subresource: 'status', now: T2 })).find((e) => e.manager === 'cairn-controller');
    expect(entry).toEqual({
      manager: 'cairn-controller',
      operation: 'Update',
      apiVersion,
      time: T2,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { '.': {}, 'f:conditions': { '.': {}, 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } }, 'f:phase': {} } },
      subresource: 'status',
    });
  });

  describe('managedFields sent by the client', () => {
    const old = write({ old: undefined, updated: created, manager: 'kubectl-create' });
    const changed = (managedFields: unknown): KubeObject =>
      edit(old, (o) => {
        o.spec.paused = true;
        (o.metadata as Record<string, unknown>).managedFields = managedFields;
      });

    it('replace the stored ones when valid', () => {
      const kept = [{ manager: 'someone', operation: 'Update', apiVersion, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }];
      expect(entries(write({ old, updated: changed(kept), manager: 'ctl' })).map((e) => e.manager)).toEqual(['someone', 'ctl']);
    });

    it('reset ownership when empty', () => {
      expect(entries(write({ old, updated: changed([]), manager: 'ctl' })).map((e) => e.manager)).toEqual(['ctl']);
      expect(entries(write({ old, updated: changed([{}]), manager: 'ctl' })).map((e) => e.manager)).toEqual(['ctl']);
    });

    it('are ignored when invalid, or sent to a subresource', () => {
      const invalid = [{ manager: 'x', operation: 'Delete', apiVersion, fieldsType: 'FieldsV1', fieldsV1: {} }];
      expect(entries(write({ old, updated: changed(invalid), manager: 'ctl', now: T2 })).map((e) => e.manager)).toEqual(['kubectl-create', 'ctl']);
      expect(entries(write({ old, updated: changed([]), manager: 'ctl', now: T2, subresource: 'status' })).map((e) => e.manager)).toEqual([
        'kubectl-create',
        'ctl',
      ]);
    });
  });

  it('sorts Apply entries first, then the oldest', () => {
    const base = applyPatch({
      live: undefined,
      applied: { apiVersion, kind: 'Pipeline', metadata: { name: 'ingest' }, spec: { replicas: 2 } },
      manager: 'zz-apply',
      force: false,
      schema: pipelineSchema,
      resolve,
      apiVersion,
      now: T3,
    }).object;
    const late = write({ old: base, updated: edit(base, (o) => (o.spec.paused = true)), manager: 'aa-late', now: T2 });
    const early = write({ old: late, updated: edit(late, (o) => (o.spec.runnerClassName = 'x')), manager: 'bb-early', now: T1 });
    expect(entries(early).map((e) => e.manager)).toEqual(['zz-apply', 'bb-early', 'aa-late']);
  });
});

describe('the entries a write records', () => {
  it('are frozen, carried as they are, and checked again only once changed', () => {
    const recorded = updateManagedFields({ schema: pipelineSchema, resolve, apiVersion, now: T1, old: undefined, updated: created, manager: 'kubectl' });
    const object = withManagedFields(created, recorded);
    expect(object.metadata?.managedFields).toBe(recorded);
    expect(() => ((recorded[0] as { operation: string }).operation = 'Bogus')).toThrow(TypeError);
    expect(managedFieldsProblem(object.metadata?.managedFields)).toBeUndefined();
    // A plugin's copy is not the write's own: it is read, and its problem found.
    expect(managedFieldsProblem([{ ...recorded[0], operation: 'Bogus' }])).toBe('operation must be `Apply` or `Update`');
    expect(managedFieldsProblem([...recorded])).toBeUndefined();
  });
});
