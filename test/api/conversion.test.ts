/**
 * cairn.dev's conversion is lossless in every direction: valid objects of each
 * version, converted to every other version and back, come back byte for byte; the
 * annotations that carry what a version cannot express appear only in that version;
 * and every conversion yields a valid object of its target version.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResourceVersion } from '../../src/apis/api-resource.js';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { specAnnotation, statusAnnotation, pipelineFromStorage, pipelineToStorage } from '../../src/apis/cairn/v1alpha1/conversion.js';
import type { KubeObject } from '../../src/machinery/meta/object.js';
import { componentSchemas } from '../../src/apis/component-schemas.js';
import { SchemaValidator } from '../../src/registry/schema-validator.js';

const validator = new SchemaValidator(componentSchemas([cairnGroup]));
const [pipelines, runnerClasses] = cairnGroup.resources;
const identity = (object: KubeObject) => object;
const reserved = [specAnnotation, statusAnnotation];

/** `object` of `from` in `to`, through the hub. */
function convert(object: KubeObject, from: ResourceVersion, to: ResourceVersion): KubeObject {
  return (to.fromStorage ?? identity)((from.toStorage ?? identity)(object));
}

const dnsLabel = fc.stringMatching(/^[a-z]([-a-z0-9]{0,10}[a-z0-9])?$/);
const text = fc.string({ maxLength: 12 });
const int32 = fc.integer({ min: 0, max: 2 ** 31 - 1 });
const time = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true })
  .map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z'));

const metadata = fc.record(
  {
    name: dnsLabel,
    namespace: dnsLabel,
    labels: fc.dictionary(dnsLabel, dnsLabel, { minKeys: 1, maxKeys: 3 }),
    annotations: fc.dictionary(fc.oneof(dnsLabel, fc.constantFrom('kubectl.kubernetes.io/last-applied-configuration', 'pipelines.cairn.dev/other')), text, {
      minKeys: 1,
      maxKeys: 3,
    }),
  },
  { requiredKeys: ['name'] },
);

const shellCommand = text.map((script) => ['sh', '-c', script]);
const command = fc.oneof(shellCommand, fc.array(text, { maxLength: 4 }), fc.constant(['sh', '-c']), fc.constant(['bash', '-c', 'x']));
const env = fc.uniqueArray(fc.record({ name: dnsLabel, value: text }, { requiredKeys: ['name'] }), { selector: (e) => e.name, maxLength: 3 });
const v1Step = fc.record({ name: dnsLabel, image: text, command, env }, { requiredKeys: ['name'] });
const condition = fc.record(
  {
    type: fc.constantFrom('Ready', 'Progressing', 'Degraded'),
    status: fc.constantFrom('True', 'False', 'Unknown'),
    reason: fc.stringMatching(/^[A-Z][a-zA-Z]{0,8}$/),
    message: text,
    lastTransitionTime: time,
    observedGeneration: int32,
  },
  { requiredKeys: ['type', 'status'] },
);
const phase = fc.constantFrom('Pending', 'Running', 'Paused', 'Failed');
const commonStatus = { phase, replicas: int32, readyReplicas: int32, selector: text, observedGeneration: int32 };

const v1Pipeline = (apiVersion: string) =>
  fc.record(
    {
      apiVersion: fc.constant(apiVersion),
      kind: fc.constant('Pipeline'),
      metadata,
      spec: fc.record(
        { runnerClassName: dnsLabel, replicas: int32, paused: fc.boolean(), steps: fc.uniqueArray(v1Step, { selector: (s) => s.name, maxLength: 4 }) },
        { requiredKeys: [] },
      ),
      status: fc.record({ ...commonStatus, conditions: fc.uniqueArray(condition, { selector: (c) => c.type, maxLength: 3 }) }, { requiredKeys: [] }),
    },
    { requiredKeys: ['apiVersion', 'kind', 'metadata'] },
  );

const v1alpha1Step = fc.record({ name: dnsLabel, image: text, run: text }, { requiredKeys: ['name'] });
/** v1alpha1 Pipelines as v1alpha1 clients write them, and as conversion from v1 gives them (annotations included). */
const v1alpha1Pipeline = fc.oneof(
  fc.record(
    {
      apiVersion: fc.constant('cairn.dev/v1alpha1'),
      kind: fc.constant('Pipeline'),
      metadata,
      spec: fc.record(
        { runnerClass: dnsLabel, parallelism: int32, steps: fc.uniqueArray(v1alpha1Step, { selector: (s) => s.name, maxLength: 4 }) },
        { requiredKeys: [] },
      ),
      status: fc.record({ ...commonStatus, ready: fc.boolean() }, { requiredKeys: [] }),
    },
    { requiredKeys: ['apiVersion', 'kind', 'metadata'] },
  ),
  v1Pipeline('cairn.dev/v1').map((object) => pipelineFromStorage(object as KubeObject)),
);

const runnerClass = (apiVersion: string) =>
  fc.record(
    {
      apiVersion: fc.constant(apiVersion),
      kind: fc.constant('RunnerClass'),
      metadata: metadata.map(({ namespace: _, ...rest }) => rest),
      spec: fc.record({ image: text, maxReplicas: int32 }, { requiredKeys: [] }),
      status: fc.record({ pipelines: int32 }, { requiredKeys: [] }),
    },
    { requiredKeys: ['apiVersion', 'kind', 'metadata'] },
  );

const arbitraries: Record<string, Record<string, fc.Arbitrary<unknown>>> = {
  pipelines: { v1: v1Pipeline('cairn.dev/v1'), v1beta1: v1Pipeline('cairn.dev/v1beta1'), v1alpha1: v1alpha1Pipeline },
  runnerclasses: { v1: runnerClass('cairn.dev/v1'), v1beta1: runnerClass('cairn.dev/v1beta1'), v1alpha1: runnerClass('cairn.dev/v1alpha1') },
};

describe.each([pipelines, runnerClasses])('conversion of $plural', (resource) => {
  for (const from of resource.versions) {
    for (const to of resource.versions) {
      it(`${from.version} → ${to.version} → ${from.version} gives back the same bytes`, () => {
        fc.assert(
          fc.property(arbitraries[resource.plural][from.version], (value) => {
            const original = value as KubeObject;
            expect(validator.validate(from.schemaName, original)).toEqual([]);
            const converted = convert(original, from, to);
            expect(converted.apiVersion).toBe(`cairn.dev/${to.version}`);
            expect(validator.validate(to.schemaName, converted)).toEqual([]);
            if (!to.conversionAnnotations) {
              for (const key of reserved) expect(converted.metadata?.annotations ?? {}).not.toHaveProperty([key]);
            }
            expect(JSON.stringify(convert(converted, to, from))).toBe(JSON.stringify(original));
          }),
          { numRuns: 300 },
        );
      });
    }
  }
});

describe('the v1alpha1 field mapping', () => {
  const v1 = {
    apiVersion: 'cairn.dev/v1',
    kind: 'Pipeline',
    metadata: { name: 'ingest', labels: { team: 'data' } },
    spec: {
      runnerClassName: 'standard',
      replicas: 3,
      paused: true,
      steps: [
        { name: 'fetch', image: 'alpine:3.20', command: ['sh', '-c', 'wget -qO- https://example.com'], env: [{ name: 'MODE', value: 'fast' }] },
        { name: 'parse', command: ['/bin/parse', '--strict'] },
      ],
    },
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Ready', status: 'False', reason: 'Scaling' },
        { type: 'Progressing', status: 'True' },
      ],
    },
  };

  it('renames, folds a shell command into run and carries the rest in annotations', () => {
    expect(pipelineFromStorage(v1)).toEqual({
      apiVersion: 'cairn.dev/v1alpha1',
      kind: 'Pipeline',
      metadata: {
        name: 'ingest',
        labels: { team: 'data' },
        annotations: {
          [specAnnotation]: JSON.stringify({
            paused: true,
            steps: [
              { name: 'fetch', env: [{ name: 'MODE', value: 'fast' }] },
              { name: 'parse', command: ['/bin/parse', '--strict'] },
            ],
          }),
          [statusAnnotation]: JSON.stringify({ conditions: v1.status.conditions }),
        },
      },
      spec: {
        runnerClass: 'standard',
        parallelism: 3,
        steps: [{ name: 'fetch', image: 'alpine:3.20', run: 'wget -qO- https://example.com' }, { name: 'parse' }],
      },
      status: { phase: 'Running', ready: false },
    });
  });

  it('needs no annotation when v1alpha1 says everything', () => {
    const plain = { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'p' }, spec: { steps: [{ name: 's', command: ['sh', '-c', 'true'] }] } };
    expect(pipelineFromStorage(plain).metadata).toEqual({ name: 'p' });
    const ready = { ...plain, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
    expect(pipelineFromStorage(ready)).toMatchObject({ metadata: { name: 'p' }, status: { ready: true } });
  });

  it('lets a v1alpha1 writer change readiness and keeps the other conditions', () => {
    const alpha = pipelineFromStorage(v1);
    (alpha.status as { ready: boolean }).ready = true;
    expect(pipelineToStorage(alpha).status).toEqual({
      phase: 'Running',
      conditions: [
        { type: 'Ready', status: 'True', reason: 'Scaling' },
        { type: 'Progressing', status: 'True' },
      ],
    });
  });

  it('lets a v1alpha1 writer replace a step command with run', () => {
    const alpha = pipelineFromStorage(v1);
    ((alpha.spec as { steps: Record<string, unknown>[] }).steps[1] as { run: string }).run = 'parse --lax';
    expect((pipelineToStorage(alpha).spec as { steps: unknown[] }).steps[1]).toEqual({ name: 'parse', command: ['sh', '-c', 'parse --lax'] });
  });

  it('leaves a malformed annotation in place, for validation to refuse', () => {
    const alpha = { apiVersion: 'cairn.dev/v1alpha1', kind: 'Pipeline', metadata: { name: 'p', annotations: { [specAnnotation]: '{not json' } }, spec: {} };
    expect(pipelineToStorage(alpha).metadata?.annotations).toEqual({ [specAnnotation]: '{not json' });
  });
});
