/**
 * The status subresource, as kube serves it for custom resources: writes through
 * `/status` change only `.status`, writes through the main resource leave it alone.
 */
import { describe, expect, it } from 'vitest';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { inProcessApp } from '../support/in-process-app.js';
import { pipeline } from '../support/test-server.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/status/pipelines';
const merge = { 'Content-Type': 'application/merge-patch+json' };

describe('status subresource', () => {
  const server = inProcessApp([cairnGroup]);

  it('ignores status on create and on writes to the main resource', async () => {
    const created = await server().request('POST', pipelines, { body: { ...pipeline('main'), status: { phase: 'Running' } } });
    expect(created.status).toBe(201);
    expect(created.json.status).toBeUndefined();
    const put = await server().request('PUT', `${pipelines}/main`, {
      body: { ...created.json, spec: { ...created.json.spec, replicas: 2 }, status: { phase: 'Failed' } },
    });
    expect(put.json.spec.replicas).toBe(2);
    expect(put.json.status).toBeUndefined();
    const patched = await server().request('PATCH', `${pipelines}/main`, { body: { status: { phase: 'Failed' } }, headers: merge });
    expect(patched.json.status).toBeUndefined();
    expect(patched.json.metadata.resourceVersion).toBe(put.json.metadata.resourceVersion);
  });

  it('writes only status through /status, by PUT, every patch type and apply', async () => {
    const created = (await server().request('POST', pipelines, { body: pipeline('sub', {}, { a: 'b' }) })).json;
    const put = await server().request('PUT', `${pipelines}/sub/status`, {
      body: {
        ...created,
        metadata: { ...created.metadata, labels: { changed: 'yes' } },
        spec: { ...created.spec, replicas: 9 },
        status: { phase: 'Running', readyReplicas: 1 },
      },
    });
    expect(put.status).toBe(200);
    expect(put.json.status).toEqual({ phase: 'Running', readyReplicas: 1 });
    expect(put.json.spec.replicas).toBe(1);
    expect(put.json.metadata.labels).toEqual({ a: 'b' });
    expect(put.json.metadata.generation).toBe(1);
    const stale = await server().request('PUT', `${pipelines}/sub/status`, { body: { ...created, status: { phase: 'Failed' } } });
    expect(stale.status).toBe(409);
    const merged = await server().request('PATCH', `${pipelines}/sub/status`, {
      body: { status: { readyReplicas: 2 }, spec: { replicas: 5 } },
      headers: merge,
    });
    expect(merged.json.status).toEqual({ phase: 'Running', readyReplicas: 2 });
    expect(merged.json.spec.replicas).toBe(1);
    const jsonPatched = await server().request('PATCH', `${pipelines}/sub/status`, {
      body: [{ op: 'replace', path: '/status/phase', value: 'Paused' }],
      headers: { 'Content-Type': 'application/json-patch+json' },
    });
    expect(jsonPatched.json.status.phase).toBe('Paused');
    const strategic = await server().request('PATCH', `${pipelines}/sub/status`, {
      body: { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Scaling' }] } },
      headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
    });
    expect(strategic.json.status.conditions).toEqual([{ type: 'Ready', status: 'False', reason: 'Scaling' }]);
    const applyStatus = (query: string) =>
      server().request('PATCH', `${pipelines}/sub/status?fieldManager=runner${query}`, {
        body: {
          apiVersion: 'cairn.dev/v1',
          kind: 'Pipeline',
          metadata: { name: 'sub' },
          spec: { replicas: 8 },
          status: { readyReplicas: 2, conditions: [{ type: 'Ready', status: 'True', reason: 'AllReplicasReady' }] },
        },
        headers: { 'Content-Type': 'application/apply-patch+yaml' },
      });
    // The strategic patch above owns the condition's status and reason now.
    const conflicting = await applyStatus('');
    expect(conflicting.status).toBe(409);
    expect(conflicting.json.details.causes.map((c: { field: string }) => c.field)).toEqual([
      '.status.conditions[type="Ready"].reason',
      '.status.conditions[type="Ready"].status',
    ]);
    const applied = await applyStatus('&force=true');
    expect(applied.status, applied.text).toBe(200);
    expect(applied.json.status.conditions).toEqual([{ type: 'Ready', status: 'True', reason: 'AllReplicasReady' }]);
    expect(applied.json.spec.replicas).toBe(1);
    expect(applied.json.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: 'runner', operation: 'Apply', subresource: 'status' }));
    const read = await server().request('GET', `${pipelines}/sub/status`);
    expect(read.json).toMatchObject({ kind: 'Pipeline', metadata: { name: 'sub' }, status: { phase: 'Paused', readyReplicas: 2 } });
    const invalid = await server().request('PATCH', `${pipelines}/sub/status`, { body: { status: { phase: 'Bogus' } }, headers: merge });
    expect(invalid.status).toBe(422);
    expect(invalid.json.message).toContain('status.phase');
  });

  it('lists the status subresources in both discovery formats', async () => {
    const legacy = (await server().request('GET', '/apis/cairn.dev/v1')).json;
    expect(legacy.resources).toContainEqual(
      expect.objectContaining({ name: 'pipelines/status', kind: 'Pipeline', namespaced: true, verbs: ['get', 'patch', 'update'] }),
    );
    expect(legacy.resources).toContainEqual(expect.objectContaining({ name: 'runnerclasses/status', kind: 'RunnerClass', namespaced: false }));
    const aggregated = (await server().request('GET', '/apis', { headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } }))
      .json;
    const resource = aggregated.items[0].versions[0].resources.find((r: { resource: string }) => r.resource === 'pipelines');
    expect(resource.subresources).toContainEqual({
      subresource: 'status',
      responseKind: { group: 'cairn.dev', version: 'v1', kind: 'Pipeline' },
      verbs: ['get', 'patch', 'update'],
    });
    expect(resource.subresources).toContainEqual({
      subresource: 'scale',
      responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      verbs: ['get', 'patch', 'update'],
    });
  });

  it('serves status for RunnerClasses and nothing for unknown subresources', async () => {
    const runnerClasses = '/apis/cairn.dev/v1/runnerclasses';
    await server().request('POST', runnerClasses, {
      body: { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name: 'std' }, spec: { image: 'r:1' } },
    });
    const patched = await server().request('PATCH', `${runnerClasses}/std/status`, { body: { status: { pipelines: 3 } }, headers: merge });
    expect(patched.json.status).toEqual({ pipelines: 3 });
    expect((await server().request('GET', `${pipelines}/sub/bogus`)).status).toBe(404);
    expect((await server().request('DELETE', `${pipelines}/sub/status`)).status).toBe(404);
    expect((await server().request('GET', `${pipelines}/missing/status`)).status).toBe(404);
  });
});
