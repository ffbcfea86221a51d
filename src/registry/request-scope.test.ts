/**
 * What a request scope makes of a body in its version, table by table: the kind and
 * apiVersion checked (or taken from the endpoint), nulls unset, unknown and duplicate
 * fields pruned and reported as fieldValidation says, defaults applied; a patched
 * object's strict failure as kube's patcher's 422; field labels of each version.
 */
import { describe, expect, it } from 'vitest';
import { servedVersion } from '../apis/api-resource.js';
import { componentSchemas } from '../apis/component-schemas.js';
import { pipelines } from '../apis/cairn/pipelines.js';
import type { KubeObject } from '../machinery/meta/object.js';
import type { FieldValidation } from './request-options.js';
import { objectScope, scaleScope } from './request-scope.js';
import { SchemaValidator } from './schema-validator.js';

const validator = new SchemaValidator(componentSchemas([{ name: 'cairn.dev', versions: ['v1', 'v1alpha1'], resources: [pipelines] }]));
const scope = (version: string) => objectScope(pipelines, servedVersion(pipelines, version)!, validator, pipelines.strategy);
const v1 = scope('v1');

const steps = [{ name: 'fetch', image: 'alpine:3.20' }];
const body = (extra: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'cairn.dev/v1',
  kind: 'Pipeline',
  metadata: { name: 'p' },
  spec: { runnerClassName: 'standard', steps, ...spec },
  ...extra,
});

describe('RequestScope.decode', () => {
  it.each<[string, unknown, FieldValidation, readonly string[], Partial<KubeObject> | undefined, readonly string[]]>([
    ['a complete body, defaulted', body(), 'Strict', [], { spec: { runnerClassName: 'standard', steps, replicas: 1 } }, []],
    [
      'a body without apiVersion and kind, which the endpoint gives it',
      { metadata: { name: 'p' }, spec: { steps } },
      'Strict',
      [],
      { apiVersion: 'cairn.dev/v1', kind: 'Pipeline' },
      [],
    ],
    ['a null, unset', body({}, { replicas: null }), 'Strict', [], { spec: { runnerClassName: 'standard', steps, replicas: 1 } }, []],
    [
      'an unknown field under Warn: pruned, and warned of',
      body({}, { colour: 'red' }),
      'Warn',
      [],
      { spec: { runnerClassName: 'standard', steps, replicas: 1 } },
      ['unknown field "spec.colour"'],
    ],
    [
      'an unknown field under Ignore: pruned in silence',
      body({}, { colour: 'red' }),
      'Ignore',
      [],
      { spec: { runnerClassName: 'standard', steps, replicas: 1 } },
      [],
    ],
    ['a repeated field under Warn', body(), 'Warn', ['spec.replicas'], {}, ['duplicate field "spec.replicas"']],
  ])('decodes %s', (_, value, fieldValidation, duplicates, expected, warnings) => {
    const decoded = v1.decode(structuredClone(value), fieldValidation, duplicates);
    expect(decoded.object).toMatchObject(expected!);
    expect(decoded.object.spec).not.toHaveProperty('colour');
    expect(decoded.warnings).toEqual(warnings);
  });

  it.each<[string, unknown, FieldValidation, readonly string[], number, string]>([
    ['a body that is no object', [1], 'Strict', [], 400, 'the body of the request must be a JSON object'],
    [
      'another apiVersion',
      body({ apiVersion: 'cairn.dev/v9' }),
      'Strict',
      [],
      400,
      'the API version in the data (cairn.dev/v9) does not match the expected API version (cairn.dev/v1)',
    ],
    ['another kind', body({ kind: 'RunnerClass' }), 'Strict', [], 400, '"RunnerClass" in version "v1" cannot be handled as a Pipeline'],
    ['metadata that is no object', body({ metadata: 'p' }), 'Strict', [], 400, 'metadata must be an object'],
    ['an unknown field under Strict', body({}, { colour: 'red' }), 'Strict', [], 400, 'strict decoding error: unknown field "spec.colour"'],
    ['a repeated field under Strict', body(), 'Strict', ['spec.replicas'], 400, 'strict decoding error: duplicate field "spec.replicas"'],
  ])('refuses %s', (_, value, fieldValidation, duplicates, code, message) => {
    expect(() => v1.decode(structuredClone(value), fieldValidation, duplicates)).toThrow(
      expect.objectContaining({ code, message: expect.stringContaining(message) as string }),
    );
  });

  it('answers a patched object’s strict failure with kube’s patcher’s 422, quoting the patch', () => {
    expect(() => v1.decode(body({}, { colour: 'red' }), 'Strict', [], { quoted: 'the-patch' })).toThrow(
      expect.objectContaining({ code: 422, message: expect.stringContaining('the-patch') as string }),
    );
  });

  it('decodes a body of another version into the hub, defaulted in its version first, and converts a hub object back', () => {
    const v1alpha1 = scope('v1alpha1');
    const sent = { apiVersion: 'cairn.dev/v1alpha1', kind: 'Pipeline', metadata: { name: 'p' }, spec: { runnerClass: 'standard', steps } };
    const { object } = v1alpha1.decode(structuredClone(sent), 'Strict', []);
    expect(object).toEqual({
      apiVersion: 'cairn.dev/v1',
      kind: 'Pipeline',
      metadata: { name: 'p' },
      spec: { runnerClassName: 'standard', replicas: 1, steps },
    });
    expect(v1alpha1.fromHub(object)).toEqual({ ...sent, spec: { runnerClass: 'standard', parallelism: 1, steps } });
    expect(v1.fromHub(object)).toBe(object);
  });

  it('takes a Scale as sent, and refuses a patched Scale’s wrong types with a 422', () => {
    const scale = scaleScope(pipelines, 'v1', validator, 'scale');
    const sent = { spec: { replicas: 2 } };
    expect(scale.decode(sent, 'Strict', []).object).toBe(sent);
    expect(() => scale.decode({ spec: { replicas: 'two' } }, 'Strict', [], { quoted: 'q' })).toThrow(expect.objectContaining({ code: 422 }));
    expect(scale).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', subresource: 'scale' });
  });
});

describe('RequestScope.fieldLabel', () => {
  it.each([
    ['v1', 'metadata.name', 'metadata.name'],
    ['v1', 'metadata.namespace', 'metadata.namespace'],
    ['v1', 'spec.runnerClassName', 'spec.runnerClassName'],
    ['v1', 'status.phase', 'status.phase'],
    ['v1', 'spec.replicas', undefined],
    ['v1alpha1', 'spec.runnerClass', 'spec.runnerClassName'],
    ['v1alpha1', 'spec.runnerClassName', undefined],
  ])('in %s, %s is the storage version’s %s', (version, label, expected) => {
    expect(scope(version).fieldLabel(label)).toBe(expected);
  });
});
