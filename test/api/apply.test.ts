/**
 * Strategic merge patch and server-side apply over the API: managedFields per
 * manager and operation, conflicts, force, and the options kube validates.
 */
import { describe, expect, it } from 'vitest';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { inProcessApp } from '../support/in-process-app.js';
import { pipeline } from '../support/test-server.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/apply/pipelines';
const applyType = { 'Content-Type': 'application/apply-patch+yaml' };
const strategic = { 'Content-Type': 'application/strategic-merge-patch+json' };

interface ManagedFieldsEntry {
  manager: string;
  operation: string;
  apiVersion: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

const entry = (object: { metadata: { managedFields?: ManagedFieldsEntry[] } }, manager: string, operation = 'Apply') =>
  object.metadata.managedFields?.find((m) => m.manager === manager && m.operation === operation);

describe('apply and strategic merge', () => {
  const server = inProcessApp([cairnGroup]);

  it('applies: creates with 201, then merges, conflicts with another manager, and yields to force', async () => {
    const config = pipeline('applied', { replicas: 2 });
    const created = await server().request('PATCH', `${pipelines}/applied?fieldManager=alice`, { body: config, headers: applyType });
    expect(created.status, created.text).toBe(201);
    expect(entry(created.json, 'alice')).toMatchObject({ apiVersion: 'cairn.dev/v1', fieldsType: 'FieldsV1' });
    expect(entry(created.json, 'alice')!.fieldsV1).toMatchObject({
      'f:spec': { 'f:replicas': {}, 'f:runnerClassName': {}, 'f:steps': { 'k:{"name":"fetch"}': {} } },
    });

    const same = await server().request('PATCH', `${pipelines}/applied?fieldManager=alice`, { body: config, headers: applyType });
    expect(same.status).toBe(200);
    expect(same.json.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);

    const yaml = 'apiVersion: cairn.dev/v1\nkind: Pipeline\nmetadata:\n  name: applied\nspec:\n  replicas: 5\n';
    const conflict = await server().request('PATCH', `${pipelines}/applied?fieldManager=bob`, { body: yaml, headers: applyType });
    expect(conflict.status).toBe(409);
    expect(conflict.json).toMatchObject({
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "alice": .spec.replicas',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.replicas' }] },
    });
    // Agreeing on a value is no conflict: the field is shared.
    const shared = await server().request('PATCH', `${pipelines}/applied?fieldManager=carol`, { body: yaml.replace('5', '2'), headers: applyType });
    expect(shared.status).toBe(200);
    expect(entry(shared.json, 'carol')!.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect(entry(shared.json, 'alice')!.fieldsV1).toMatchObject({ 'f:spec': { 'f:replicas': {} } });

    const forced = await server().request('PATCH', `${pipelines}/applied?fieldManager=bob&force=true`, { body: yaml, headers: applyType });
    expect(forced.status).toBe(200);
    expect(forced.json.spec.replicas).toBe(5);
    expect(entry(forced.json, 'bob')!.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect((entry(forced.json, 'alice')!.fieldsV1['f:spec'] as Record<string, unknown>)['f:replicas']).toBeUndefined();
  });

  it('removes what a manager stops applying, unless another manager owns it', async () => {
    const two = pipeline('pruned', {
      steps: [
        { name: 'fetch', image: 'a:1' },
        { name: 'store', image: 'b:1' },
      ],
    });
    await server().request('PATCH', `${pipelines}/pruned?fieldManager=alice`, { body: two, headers: applyType });
    const one = pipeline('pruned', { steps: [{ name: 'fetch', image: 'a:1' }] });
    const applied = await server().request('PATCH', `${pipelines}/pruned?fieldManager=alice`, { body: one, headers: applyType });
    expect(applied.json.spec.steps).toEqual([{ name: 'fetch', image: 'a:1' }]);
    // A step someone else also applies stays.
    await server().request('PATCH', `${pipelines}/pruned?fieldManager=alice`, { body: two, headers: applyType });
    await server().request('PATCH', `${pipelines}/pruned?fieldManager=bob`, {
      body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'pruned' }, spec: { steps: [{ name: 'store', image: 'b:1' }] } },
      headers: applyType,
    });
    const kept = await server().request('PATCH', `${pipelines}/pruned?fieldManager=alice`, { body: one, headers: applyType });
    expect(kept.json.spec.steps.map((s: { name: string }) => s.name)).toEqual(['fetch', 'store']);
  });

  it('records Update managers for create, update and patch, named after fieldManager or the User-Agent', async () => {
    const created = await server().request('POST', `${pipelines}?fieldManager=creator`, { body: pipeline('updated') });
    expect(entry(created.json, 'creator', 'Update')!.fieldsV1).toMatchObject({ 'f:spec': { 'f:replicas': {} } });
    const patched = await server().request('PATCH', `${pipelines}/updated`, {
      body: { spec: { replicas: 3 } },
      headers: { 'Content-Type': 'application/merge-patch+json', 'User-Agent': 'scaler/1.0 (linux)' },
    });
    expect(entry(patched.json, 'scaler', 'Update')!.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect((entry(patched.json, 'creator', 'Update')!.fieldsV1['f:spec'] as Record<string, unknown>)['f:replicas']).toBeUndefined();
    const status = await server().request('PATCH', `${pipelines}/updated/status?fieldManager=controller`, {
      body: { status: { phase: 'Running' } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(status.json.metadata.managedFields).toContainEqual(
      expect.objectContaining({ manager: 'controller', operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': { '.': {}, 'f:phase': {} } } }),
    );
    // An Update owner conflicts with a later applier too.
    const conflict = await server().request('PATCH', `${pipelines}/updated?fieldManager=applier`, {
      body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'updated' }, spec: { replicas: 9 } },
      headers: applyType,
    });
    expect(conflict.status).toBe(409);
    expect(conflict.json.message).toContain('conflict with "scaler" using cairn.dev/v1: .spec.replicas');
  });

  it('owns none of the system metadata a create’s body carries: kube wipes it before the field manager records the write', async () => {
    const body = pipeline('system-fields');
    const sent = {
      ...body,
      metadata: {
        ...body.metadata,
        labels: { team: 'x' },
        uid: '00000000-0000-0000-0000-000000000000',
        creationTimestamp: '2020-01-01T00:00:00Z',
        deletionTimestamp: '2020-01-01T00:00:00Z',
        deletionGracePeriodSeconds: 30,
        selfLink: '/elsewhere',
      },
    };
    const created = await server().request('POST', `${pipelines}?fieldManager=creator`, { body: sent });
    expect(created.status, created.text).toBe(201);
    expect(created.json.metadata).not.toHaveProperty('deletionTimestamp');
    expect(created.json.metadata).not.toHaveProperty('deletionGracePeriodSeconds');
    expect(entry(created.json, 'creator', 'Update')!.fieldsV1['f:metadata']).toEqual({ 'f:labels': { '.': {}, 'f:team': {} } });
  });

  it('keeps at most ten Update entries, folding the oldest into ancient-changes', async () => {
    await server().request('POST', `${pipelines}?fieldManager=creator`, { body: pipeline('crowded') });
    let latest: { metadata: { managedFields?: ManagedFieldsEntry[] } } = { metadata: {} };
    for (let i = 0; i < 11; i++) {
      const patched = await server().request('PATCH', `${pipelines}/crowded?fieldManager=labeler-${i}`, {
        body: { metadata: { labels: { [`l${i}`]: 'x' } } },
        headers: { 'Content-Type': 'application/merge-patch+json' },
      });
      expect(patched.status).toBe(200);
      latest = patched.json;
    }
    const updates = latest.metadata.managedFields!.filter((m) => m.operation === 'Update');
    expect(updates).toHaveLength(10);
    const ancient = entry(latest, 'ancient-changes', 'Update');
    expect(ancient).toMatchObject({ apiVersion: 'cairn.dev/v1', fieldsType: 'FieldsV1' });
    // Twelve writers, ten entries: three of them now live in ancient-changes, and no field lost its owner.
    const owned = new Set(
      updates.flatMap((m) => Object.keys((m.fieldsV1['f:metadata'] as { 'f:labels'?: object } | undefined)?.['f:labels'] ?? {}).filter((key) => key !== '.')),
    );
    expect([...owned].sort()).toEqual(Array.from({ length: 11 }, (_, i) => `f:l${i}`).sort());
  });

  it('dry-runs an apply: answered, not stored', async () => {
    const dry = await server().request('PATCH', `${pipelines}/dry-applied?fieldManager=alice&dryRun=All`, {
      body: pipeline('dry-applied'),
      headers: applyType,
    });
    expect(dry.status).toBe(201);
    expect(entry(dry.json, 'alice')).toBeDefined();
    expect((await server().request('GET', `${pipelines}/dry-applied`)).status).toBe(404);
  });

  it('validates patch options as kube does', async () => {
    const noManager = await server().request('PATCH', `${pipelines}/nobody`, { body: pipeline('nobody'), headers: applyType });
    expect(noManager.status).toBe(422);
    expect(noManager.json.message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    const forceElsewhere = await server().request('PATCH', `${pipelines}/nobody?force=true`, {
      body: {},
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(forceElsewhere.status).toBe(422);
    expect(forceElsewhere.json.message).toContain('force: Forbidden: may not be specified for non-apply patch');
    const otherName = await server().request('PATCH', `${pipelines}/nobody?fieldManager=x`, { body: pipeline('somebody'), headers: applyType });
    expect(otherName.status).toBe(400);
    const bad = await server().request('PATCH', `${pipelines}/nobody`, { body: {}, headers: { 'Content-Type': 'application/x-unknown' } });
    expect(bad.status).toBe(415);
  });

  it('strategic-merges steps by name, with directives, as kube does', async () => {
    await server().request('POST', pipelines, {
      body: pipeline('smp', {
        steps: [
          { name: 'fetch', image: 'a:1', env: [{ name: 'A', value: '1' }] },
          { name: 'build', image: 'b:1' },
          { name: 'store', image: 'c:1' },
        ],
      }),
    });
    const merged = await server().request('PATCH', `${pipelines}/smp`, {
      body: {
        spec: {
          steps: [
            { name: 'fetch', env: [{ name: 'B', value: '2' }] },
            { name: 'build', $patch: 'delete' },
          ],
        },
      },
      headers: strategic,
    });
    expect(merged.status, merged.text).toBe(200);
    // Without $setElementOrder kube puts a new item before the ones the patch does not mention.
    expect(merged.json.spec.steps).toEqual([
      {
        name: 'fetch',
        image: 'a:1',
        env: [
          { name: 'B', value: '2' },
          { name: 'A', value: '1' },
        ],
      },
      { name: 'store', image: 'c:1' },
    ]);
    const ordered = await server().request('PATCH', `${pipelines}/smp`, {
      body: { spec: { '$setElementOrder/steps': [{ name: 'store' }, { name: 'fetch' }], steps: [{ name: 'store', image: 'c:2' }] } },
      headers: strategic,
    });
    expect(ordered.json.spec.steps.map((s: { name: string; image: string }) => `${s.name}=${s.image}`)).toEqual(['store=c:2', 'fetch=a:1']);
    const replaced = await server().request('PATCH', `${pipelines}/smp`, {
      body: { spec: { steps: [{ name: 'only' }, { $patch: 'replace' }] } },
      headers: strategic,
    });
    expect(replaced.json.spec.steps).toEqual([{ name: 'only' }]);
    const broken = await server().request('PATCH', `${pipelines}/smp`, { body: { spec: { steps: [{ image: 'no-name' }] } }, headers: strategic });
    expect(broken.status).toBe(422);
    expect(broken.json.message).toContain('does not contain declared merge key: name');
  });
});
