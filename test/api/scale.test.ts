/**
 * The scale subresource: an autoscaling/v1 Scale mapped onto spec.replicas,
 * status.replicas and status.selector, as kubectl scale and an HPA use it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { inProcessApp } from '../support/in-process-app.js';
import { pipeline } from '../support/test-server.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/scale/pipelines';
const merge = { 'Content-Type': 'application/merge-patch+json' };

describe('scale subresource', () => {
  const server = inProcessApp([cairnGroup]);
  beforeAll(async () => {
    await server().request('POST', pipelines, { body: pipeline('web', { replicas: 2 }) });
    await server().request('PATCH', `${pipelines}/web/status`, { body: { status: { replicas: 2, selector: 'cairn.dev/pipeline=web' } }, headers: merge });
  });

  it('reads the Scale of a Pipeline', async () => {
    const scale = await server().request('GET', `${pipelines}/web/scale`);
    expect(scale.status).toBe(200);
    const object = (await server().request('GET', `${pipelines}/web`)).json;
    expect(scale.json).toEqual({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: 'web',
        namespace: 'scale',
        uid: object.metadata.uid,
        resourceVersion: object.metadata.resourceVersion,
        creationTimestamp: object.metadata.creationTimestamp,
      },
      spec: { replicas: 2 },
      status: { replicas: 2, selector: 'cairn.dev/pipeline=web' },
    });
  });

  it('scales with PUT, merge and strategic merge patch, with optimistic concurrency', async () => {
    const scale = (await server().request('GET', `${pipelines}/web/scale`)).json;
    const put = await server().request('PUT', `${pipelines}/web/scale`, { body: { ...scale, spec: { replicas: 4 } } });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ kind: 'Scale', spec: { replicas: 4 }, status: { replicas: 2 } });
    expect((await server().request('GET', `${pipelines}/web`)).json.spec.replicas).toBe(4);
    const stale = await server().request('PUT', `${pipelines}/web/scale`, { body: { ...scale, spec: { replicas: 9 } } });
    expect(stale.status).toBe(409);
    const merged = await server().request('PATCH', `${pipelines}/web/scale`, { body: { spec: { replicas: 5 } }, headers: merge });
    expect(merged.json.spec.replicas).toBe(5);
    const strategic = await server().request('PATCH', `${pipelines}/web/scale`, {
      body: { spec: { replicas: 6 } },
      headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
    });
    expect(strategic.json.spec.replicas).toBe(6);
    const object = (await server().request('GET', `${pipelines}/web`)).json;
    expect(object.spec.replicas).toBe(6);
    expect(object.metadata.generation).toBe(4);
    expect(object.metadata.managedFields).toContainEqual(
      expect.objectContaining({ operation: 'Update', subresource: 'scale', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }),
    );
  });

  it('refuses negative replicas with 422, other kinds with 400, and apply with 415', async () => {
    const negative = await server().request('PATCH', `${pipelines}/web/scale`, { body: { spec: { replicas: -1 } }, headers: merge });
    expect(negative.status).toBe(422);
    expect(negative.json).toMatchObject({ reason: 'Invalid', details: { kind: 'Scale', group: 'autoscaling', causes: [{ field: 'spec.replicas' }] } });
    const notScale = await server().request('PUT', `${pipelines}/web/scale`, { body: pipeline('web') });
    expect(notScale.status).toBe(400);
    const apply = await server().request('PATCH', `${pipelines}/web/scale?fieldManager=x`, {
      body: {},
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    expect(apply.status).toBe(415);
    expect((await server().request('GET', `${pipelines}/missing/scale`)).status).toBe(404);
    expect((await server().request('GET', '/apis/cairn.dev/v1/runnerclasses/x/scale')).status).toBe(404);
  });

  it('lists pipelines/scale as autoscaling/v1 Scale in discovery, and answers Tables', async () => {
    const legacy = (await server().request('GET', '/apis/cairn.dev/v1')).json;
    expect(legacy.resources).toContainEqual({
      name: 'pipelines/scale',
      singularName: '',
      namespaced: true,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
    const table = await server().request('GET', `${pipelines}/web/scale`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    // kube's default table convertor: ObjectMeta's descriptions of both fields, whole.
    expect(table.json.columnDefinitions).toEqual([
      {
        name: 'Name',
        type: 'string',
        format: 'name',
        priority: 0,
        description: expect.stringMatching(/^Name must be unique within a namespace\. Is required .*#names$/),
      },
      {
        name: 'Created At',
        type: 'date',
        format: '',
        priority: 0,
        description: expect.stringMatching(
          /^CreationTimestamp is a timestamp .* It is represented in RFC3339 form and is in UTC\.\n\nPopulated by the system\. .*#metadata$/,
        ),
      },
    ]);
    expect(table.json.rows[0].cells[0]).toBe('web');
  });
});
