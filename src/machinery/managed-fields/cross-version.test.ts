/**
 * managedFields across versions: conflicts over and ownership of renamed fields, and managers
 * whose version is no longer served.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import { componentResolver, type JsonSchema } from '../json-schema.js';
import type { KubeObject } from '../meta/object.js';
import { metaSchemaNames, metaSchemas } from '../types/meta-schemas.js';
import { statusErrorOf } from '../../../test/support/status-error.js';
import { applyPatch } from './apply.js';
import { withManagedFields, type OwnershipContext, type VersionConverter } from './managed-fields.js';
import { updateManagedFields } from './update.js';

// A Widget served in two versions that name things differently, as Pipeline's
// v1alpha1 does: v1 `spec.replicas` is v2 `spec.size`, and a v1 step's
// `command: [sh, -c, X]` (an atomic list) is a v2 step's `run: X`. v3 is not served.
const v1 = 'example.dev/v1';
const v2 = 'example.dev/v2';
const v3 = 'example.dev/v3';
const T1 = '2024-05-01T10:00:00Z';
const T2 = '2024-05-01T11:00:00Z';

const resolve = componentResolver(metaSchemas);
const steps = (fields: Record<string, JsonSchema>): JsonSchema => ({
  type: 'array',
  items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, image: { type: 'string' }, retries: { type: 'integer' }, ...fields } },
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['name'],
});
const widget = (spec: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { $ref: `#/components/schemas/${metaSchemaNames.objectMeta}` },
    spec: { type: 'object', properties: { mode: { type: 'string' }, ...spec } },
  },
});
const schemas: Readonly<Record<string, JsonSchema>> = {
  [v1]: widget({ replicas: { type: 'integer' }, steps: steps({ command: { type: 'array', items: { type: 'string' } } }) }),
  [v2]: widget({ size: { type: 'integer' }, steps: steps({ run: { type: 'string' } }) }),
};

type Spec = Record<string, unknown> & { steps?: Array<Record<string, unknown>> };

function renamed(spec: Spec, from: string, to: string, step: (s: Record<string, unknown>) => Record<string, unknown>): Spec {
  const { [from]: value, steps: list, ...rest } = spec;
  return { ...rest, ...(value !== undefined ? { [to]: value } : {}), ...(list ? { steps: list.map(step) } : {}) };
}

const toV2 = (spec: Spec) => renamed(spec, 'replicas', 'size', ({ command, ...s }) => ({ ...s, ...(Array.isArray(command) ? { run: command[2] } : {}) }));
const toV1 = (spec: Spec) => renamed(spec, 'size', 'replicas', ({ run, ...s }) => ({ ...s, ...(run !== undefined ? { command: ['sh', '-c', run] } : {}) }));

/** The converter a request in `from` gets. */
function converterFrom(from: string): VersionConverter {
  return {
    schema: (apiVersion) => schemas[apiVersion],
    convert(object, apiVersion) {
      if (!schemas[apiVersion]) return undefined;
      const spec = object.spec as Spec | undefined;
      const converted = spec && from !== apiVersion ? (apiVersion === v2 ? toV2(spec) : toV1(spec)) : spec;
      return { ...object, apiVersion, ...(converted ? { spec: converted } : {}) };
    },
  };
}

function context(apiVersion: string, manager: string, now = T1): OwnershipContext {
  return { manager, apiVersion, schema: schemas[apiVersion], resolve, now, converter: converterFrom(apiVersion) };
}

/** The stored object, read back in `apiVersion` as the request scope hands it over. */
function readAs(object: KubeObject, apiVersion: string): KubeObject {
  if (object.apiVersion === apiVersion) return object;
  const { managedFields = [] } = object.metadata ?? {};
  return withManagedFields(converterFrom(object.apiVersion!).convert(withManagedFields(object, []), apiVersion)!, managedFields);
}

function widgetIn(apiVersion: string, spec: Spec): KubeObject {
  return { apiVersion, kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec };
}

function update(live: KubeObject | undefined, apiVersion: string, manager: string, spec: Spec, now = T1): KubeObject {
  const old = live && readAs(live, apiVersion);
  const updated = { ...(old ?? widgetIn(apiVersion, {})), spec };
  return withManagedFields(updated, updateManagedFields({ ...context(apiVersion, manager, now), old, updated }));
}

function apply(live: KubeObject | undefined, apiVersion: string, manager: string, spec: Spec, force = false): KubeObject {
  return applyPatch({ ...context(apiVersion, manager, T2), live: live && readAs(live, apiVersion), applied: widgetIn(apiVersion, spec), force }).object;
}

function owned(object: KubeObject): Array<Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'fieldsV1'>> {
  return (object.metadata?.managedFields ?? []).map(({ manager, operation, apiVersion, fieldsV1 }) => ({ manager, operation, apiVersion, fieldsV1 }));
}

const fetch = { name: 'fetch', image: 'alpine', command: ['sh', '-c', 'wget'] };

describe('managedFields across versions', () => {
  const scaled = update(undefined, v1, 'hpa', { replicas: 2 });

  it('answers 409 naming the other manager, its version and its path when an apply changes a renamed field it owns', () => {
    const error = statusErrorOf(() => apply(scaled, v2, 'kubectl', { size: 3 }));
    expect(error.code).toBe(409);
    expect(error.status.message).toBe('Apply failed with 1 conflict: conflict with "hpa" using example.dev/v1: .spec.replicas');
    expect(error.status.details?.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "hpa" using example.dev/v1', field: '.spec.replicas' },
    ]);
  });

  it('takes the renamed field with force, recording each manager in its own version', () => {
    const stepped = update(scaled, v1, 'hpa', { replicas: 2, mode: 'fast', steps: [fetch] });
    const forced = apply(stepped, v2, 'kubectl', { size: 3, steps: [{ name: 'fetch', run: 'curl' }] }, true);
    expect(forced.spec).toEqual({ size: 3, mode: 'fast', steps: [{ name: 'fetch', image: 'alpine', run: 'curl' }] });
    expect(owned(forced)).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: v2,
        fieldsV1: { 'f:spec': { 'f:size': {}, 'f:steps': { 'k:{"name":"fetch"}': { '.': {}, 'f:name': {}, 'f:run': {} } } } },
      },
      {
        manager: 'hpa',
        operation: 'Update',
        apiVersion: v1,
        fieldsV1: { 'f:spec': { '.': {}, 'f:mode': {}, 'f:steps': { '.': {}, 'k:{"name":"fetch"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
      },
    ]);
  });

  it('names the list item and field of the other version in a conflict', () => {
    const stepped = update(scaled, v1, 'hpa', { replicas: 2, steps: [fetch] });
    const error = statusErrorOf(() => apply(stepped, v2, 'kubectl', { steps: [{ name: 'fetch', run: 'curl' }] }));
    expect(error.status.details?.causes?.map((cause) => cause.field)).toEqual(['.spec.steps[name="fetch"].command']);
  });

  it('shares a renamed field set to the value it has', () => {
    const shared = apply(scaled, v2, 'kubectl', { size: 2 });
    expect(shared.spec).toEqual({ size: 2 });
    expect(owned(shared).map(({ manager, fieldsV1 }) => [manager, fieldsV1])).toEqual([
      ['kubectl', { 'f:spec': { 'f:size': {} } }],
      ['hpa', { 'f:spec': { '.': {}, 'f:replicas': {} } }],
    ]);
  });

  it('moves a field an update of another version changes, and drops what it removes from every version', () => {
    const stepped = update(scaled, v1, 'hpa', { replicas: 2, steps: [fetch] });
    const resized = update(stepped, v2, 'editor', { size: 4, steps: [{ name: 'fetch', image: 'alpine', run: 'wget' }] }, T2);
    expect(owned(resized).map(({ manager, fieldsV1 }) => [manager, fieldsV1])).toEqual([
      ['hpa', { 'f:spec': { '.': {}, 'f:steps': { '.': {}, 'k:{"name":"fetch"}': { '.': {}, 'f:command': {}, 'f:image': {}, 'f:name': {} } } } }],
      ['editor', { 'f:spec': { 'f:size': {} } }],
    ]);
    const emptied = update(resized, v2, 'editor', { size: 4 }, T2);
    expect(owned(emptied).map(({ manager, fieldsV1 }) => [manager, fieldsV1])).toEqual([
      ['hpa', { 'f:spec': {} }],
      ['editor', { 'f:spec': { 'f:size': {} } }],
    ]);
  });

  it('drops a manager whose version is no longer served, on update and on apply', () => {
    const entries = [
      ...(scaled.metadata?.managedFields ?? []),
      { manager: 'old', operation: 'Update', apiVersion: v3, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:mode': {} } } },
    ];
    const withOld = withManagedFields(scaled, entries as ManagedFieldsEntry[]);
    expect(owned(update(withOld, v2, 'editor', { size: 2, mode: 'slow' })).map(({ manager }) => manager)).toEqual(['editor', 'hpa']);
    expect(owned(apply(withOld, v1, 'kubectl', { replicas: 2 })).map(({ manager }) => manager)).toEqual(['kubectl', 'hpa']);
  });

  describe('an applier that moves to another version', () => {
    const first = apply(undefined, v1, 'kubectl', { replicas: 2, mode: 'fast', steps: [fetch] });

    it('records its entry in the new version, and removes what it stopped applying', () => {
      const moved = apply(first, v2, 'kubectl', { mode: 'fast', steps: [{ name: 'fetch', image: 'alpine' }] });
      expect(moved.spec).toEqual({ mode: 'fast', steps: [{ name: 'fetch', image: 'alpine' }] });
      expect(owned(moved)).toEqual([
        {
          manager: 'kubectl',
          operation: 'Apply',
          apiVersion: v2,
          fieldsV1: { 'f:spec': { 'f:mode': {}, 'f:steps': { 'k:{"name":"fetch"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
        },
      ]);
    });

    it('keeps what it stopped applying while another manager owns it, in whatever version', () => {
      const sharedInV1 = apply(first, v1, 'ops', { replicas: 2 });
      expect(apply(sharedInV1, v2, 'kubectl', { mode: 'fast' }).spec).toEqual({ size: 2, mode: 'fast' });

      const sharedInV2 = apply(first, v2, 'ops', { steps: [{ name: 'fetch', run: 'wget' }] });
      expect(apply(sharedInV2, v2, 'kubectl', { mode: 'fast' }).spec).toEqual({ mode: 'fast', steps: [{ name: 'fetch', run: 'wget' }] });
    });

    it('keeps what nobody applied under an item it still applies', () => {
      const retried = withManagedFields({ ...first, spec: { ...(first.spec as Spec), steps: [{ ...fetch, retries: 3 }] } }, first.metadata!.managedFields!);
      expect(apply(retried, v2, 'kubectl', { mode: 'fast', steps: [{ name: 'fetch' }] }).spec).toEqual({
        mode: 'fast',
        steps: [{ name: 'fetch', retries: 3 }],
      });
    });

    it('prunes nothing when its previous version is no longer served', () => {
      const entries = [{ ...first.metadata!.managedFields![0], apiVersion: v3 }];
      const moved = apply(withManagedFields(first, entries), v2, 'kubectl', { mode: 'fast' });
      expect(moved.spec).toEqual({ size: 2, mode: 'fast', steps: [{ name: 'fetch', image: 'alpine', run: 'wget' }] });
      expect(owned(moved).map(({ apiVersion }) => apiVersion)).toEqual([v2]);
    });
  });
});

// Two names for one version: what the cross-version machinery computes must be what
// one version computes, when nothing is renamed.
describe('managedFields across two names of one version', () => {
  const twin = 'example.dev/v1twin';
  const identity: VersionConverter = {
    schema: (apiVersion) => (apiVersion === v1 || apiVersion === twin ? schemas[v1] : undefined),
    convert: (object, apiVersion) => ({ ...object, apiVersion }),
  };

  type Op = { kind: 'apply'; manager: string; twin: boolean; force: boolean; spec: Spec } | { kind: 'update'; manager: string; spec: Spec };
  const step = fc.record(
    { name: fc.constantFrom('a', 'b', 'c'), image: fc.constantFrom('alpine', 'busybox'), command: fc.constantFrom(['sh', '-c', 'x'], ['go']) },
    { requiredKeys: ['name'] },
  );
  const spec: fc.Arbitrary<Spec> = fc.record(
    {
      replicas: fc.integer({ min: 0, max: 2 }),
      mode: fc.constantFrom('fast', 'slow'),
      steps: fc.uniqueArray(step, { selector: (s) => s.name, maxLength: 3 }),
    },
    { requiredKeys: [] },
  );
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('apply' as const), manager: fc.constantFrom('a1', 'a2'), twin: fc.boolean(), force: fc.boolean(), spec }),
    fc.record({ kind: fc.constant('update' as const), manager: fc.constantFrom('u1', 'u2'), spec }),
  );
  // Update entries are kept per apiVersion, so each updater writes in one version.
  const updaterVersion: Record<string, string> = { u1: v1, u2: twin };

  /** Runs the writes, each in its version with the converter, or all in v1 without; a 409 is kept as its causes. */
  function run(ops: readonly Op[], twoVersions: boolean): unknown[] {
    let live: KubeObject | undefined;
    return ops.map((o) => {
      const apiVersion = !twoVersions ? v1 : o.kind === 'apply' ? (o.twin ? twin : v1) : updaterVersion[o.manager];
      const ctx = { manager: o.manager, apiVersion, schema: schemas[v1], resolve, now: T1, ...(twoVersions ? { converter: identity } : {}) };
      const current = live && { ...live, apiVersion };
      try {
        if (o.kind === 'apply') {
          live = applyPatch({ ...ctx, live: current, applied: widgetIn(apiVersion, o.spec), force: o.force }).object;
        } else {
          const updated = { ...(current ?? widgetIn(apiVersion, {})), spec: o.spec };
          live = withManagedFields(updated, updateManagedFields({ ...ctx, old: current, updated }));
        }
      } catch (error) {
        return statusErrorOf(() => {
          throw error;
        }).status.details?.causes?.map((cause) => cause.field);
      }
      const { apiVersion: _, ...object } = live;
      return JSON.parse(JSON.stringify(object).replaceAll(twin, v1)) as unknown;
    });
  }

  it('gives the results of one version', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 6 }), (ops) => {
        expect(run(ops, true)).toEqual(run(ops, false));
      }),
      { numRuns: 300 },
    );
  });
});
