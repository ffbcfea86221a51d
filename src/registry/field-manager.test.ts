/**
 * The field manager of a request scope, which compares each manager in its own version through
 * the converter.
 */
import { describe, expect, it } from 'vitest';
import { componentResolver, type JsonSchema } from '../machinery/json-schema.js';
import type { VersionConverter } from '../machinery/managed-fields/managed-fields.js';
import type { KubeObject } from '../machinery/meta/object.js';
import { statusErrorOf } from '../../test/support/status-error.js';
import { FieldManager } from './field-manager.js';

// v1's `spec.replicas` is v2's `spec.size`.
const v1 = 'example.dev/v1';
const v2 = 'example.dev/v2';
const specOf = (field: string): JsonSchema => ({ type: 'object', properties: { spec: { type: 'object', properties: { [field]: { type: 'integer' } } } } });
const schemas: Readonly<Record<string, JsonSchema>> = { [v1]: specOf('replicas'), [v2]: specOf('size') };
const fromV2: VersionConverter = {
  schema: (apiVersion) => schemas[apiVersion],
  convert: ({ spec, ...object }, apiVersion) => {
    if (apiVersion !== v1) return apiVersion === v2 ? { ...object, spec } : undefined;
    const { size, ...rest } = (spec ?? {}) as Record<string, unknown>;
    return { ...object, apiVersion, spec: { ...rest, ...(size !== undefined ? { replicas: size } : {}) } };
  },
};

const live: KubeObject = {
  apiVersion: v2,
  kind: 'Widget',
  metadata: {
    name: 'w',
    managedFields: [{ manager: 'hpa', operation: 'Update', apiVersion: v1, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }],
  },
  spec: { size: 2 },
};
const applied: KubeObject = { apiVersion: v2, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } };

describe('FieldManager', () => {
  const options = { schema: schemas[v2], resolve: componentResolver({}), apiVersion: v2, kind: 'Widget', resetFields: [] };

  it('compares each manager in its version through the converter it is given', () => {
    const error = statusErrorOf(() => new FieldManager({ ...options, converter: fromV2 }).apply(live, applied, 'kubectl', false));
    expect(error.status.message).toBe('Apply failed with 1 conflict: conflict with "hpa" using example.dev/v1: .spec.replicas');
  });

  it("reads every entry as if written in the request's version without one", () => {
    const object = new FieldManager(options).apply(live, applied, 'kubectl', false);
    expect(object.metadata?.managedFields?.map((entry) => entry.manager)).toEqual(['kubectl', 'hpa']);
  });

  it('is given hub objects and records a write in its own version, the hub object keeping its fields', () => {
    // The hub is v1 here; the endpoint speaks v2, where `spec.replicas` is `spec.size`.
    const fromHub = ({ spec, ...object }: KubeObject): KubeObject => {
      const { replicas, ...rest } = (spec ?? {}) as Record<string, unknown>;
      return { ...object, apiVersion: v2, spec: { ...rest, ...(replicas !== undefined ? { size: replicas } : {}) } };
    };
    const hub = (replicas: number): KubeObject => ({ apiVersion: v1, kind: 'Widget', metadata: { name: 'w' }, spec: { replicas } });
    const recorded = new FieldManager({ ...options, fromHub }).update(hub(1), hub(2), 'scaler');
    expect(recorded.spec).toEqual({ replicas: 2 });
    expect(recorded.metadata?.managedFields).toEqual([
      expect.objectContaining({ manager: 'scaler', operation: 'Update', apiVersion: v2, fieldsV1: { 'f:spec': { 'f:size': {} } } }),
    ]);
  });

  it.each([
    ['no kind', { apiVersion: v2 }, 'example.dev/v2, Kind='],
    ['no apiVersion', { kind: 'Widget' }, '/, Kind=Widget'],
    ['a core apiVersion', { apiVersion: 'v1', kind: 'Widget' }, '/v1, Kind=Widget'],
    ['another version', { apiVersion: v1, kind: 'Widget' }, 'example.dev/v1, Kind=Widget'],
    ['an apiVersion that does not parse', { apiVersion: 'a/b/c', kind: 'Widget' }, '/, Kind='],
  ])('refuses an applied configuration with %s as kube’s versionCheckManager prints its type', (_, type, printed) => {
    const { apiVersion: _v, kind: _k, ...rest } = applied;
    const error = statusErrorOf(() => new FieldManager(options).apply(live, { ...rest, ...type }, 'kubectl', false));
    expect(error.status).toMatchObject({ code: 400, reason: 'BadRequest', message: `invalid object type: ${printed}` });
  });
});
