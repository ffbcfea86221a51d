/**
 * The history subresource: an object's retained revisions, newest first, each with the
 * write that made it (operation, subresource, field manager, user) and the object as it
 * left it in the request's version; paged with limit and continue, narrowed by uid, in
 * every representation a read is (JSON, YAML, protobuf, Table).
 */
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { inProcessApp } from '../support/in-process-app.js';
import { protobuf, requestBytes, scheme } from '../support/protobuf-client.js';
import { pipeline, runnerClass } from '../support/test-server.js';

const ns = '/apis/cairn.dev/v1/namespaces/history';
const merge = { 'Content-Type': 'application/merge-patch+json' };
const apply = { 'Content-Type': 'application/apply-patch+yaml' };
const table = 'application/json;as=Table;v=v1;g=meta.k8s.io';

type Item = { resourceVersion: string; time: string; operation: string; subresource: string; fieldManager: string; user: string; object: any };

describe('history subresource', () => {
  const app = inProcessApp([cairnGroup]);
  const history = async (path: string, headers: Record<string, string> = {}) => {
    const response = await app().request('GET', path, { headers });
    expect(response.status, response.text).toBe(200);
    return response.json as { apiVersion: string; kind: string; metadata: { resourceVersion: string; continue?: string }; items: Item[] };
  };

  describe('of a Pipeline written every way', () => {
    let uid: string;
    beforeAll(async () => {
      const created = await app().request('POST', `${ns}/pipelines?fieldManager=creator`, { body: pipeline('web', { replicas: 1 }) });
      expect(created.status).toBe(201);
      uid = created.json.metadata.uid;
      const put = await app().request('PUT', `${ns}/pipelines/web?fieldManager=editor`, {
        body: { ...created.json, spec: { ...created.json.spec, replicas: 2 } },
      });
      expect(put.status).toBe(200);
      expect((await app().request('PATCH', `${ns}/pipelines/web?fieldManager=patcher`, { body: { spec: { replicas: 3 } }, headers: merge })).status).toBe(200);
      const applied = { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'web', labels: { tier: 'gold' } } };
      expect((await app().request('PATCH', `${ns}/pipelines/web?fieldManager=applier`, { body: applied, headers: apply })).status).toBe(200);
      const status = await app().request('PATCH', `${ns}/pipelines/web/status?fieldManager=controller`, {
        body: { status: { phase: 'Running' } },
        headers: merge,
      });
      expect(status.status).toBe(200);
      const scaled = await app().request('PATCH', `${ns}/pipelines/web/scale?fieldManager=autoscaler`, { body: { spec: { replicas: 5 } }, headers: merge });
      expect(scaled.status).toBe(200);
      expect((await app().request('DELETE', `${ns}/pipelines/web`)).status).toBe(200);
    });

    it('lists every revision newest first, with its operation, subresource, manager and user, and the object as it was', async () => {
      const list = await history(`${ns}/pipelines/web/history`);
      expect(list).toMatchObject({ apiVersion: 'cairn.dev/v1', kind: 'RevisionList' });
      expect(list.metadata.continue).toBeUndefined();
      const shown = list.items.map((i) => [i.operation, i.subresource, i.fieldManager, i.user, i.object.spec.replicas]);
      expect(shown).toEqual([
        ['delete', '', '', 'test-admin', 5],
        ['patch', 'scale', 'autoscaler', 'test-admin', 5],
        ['patch', 'status', 'controller', 'test-admin', 3],
        ['apply', '', 'applier', 'test-admin', 3],
        ['patch', '', 'patcher', 'test-admin', 3],
        ['update', '', 'editor', 'test-admin', 2],
        ['create', '', 'creator', 'test-admin', 1],
      ]);
      const versions = list.items.map((i) => BigInt(i.resourceVersion));
      expect([...versions].sort((a, b) => (a > b ? -1 : 1))).toEqual(versions);
      expect(new Set(versions).size).toBe(versions.length);
      // Each revision's object carries the resourceVersion its write gave it; the objects are whole Pipelines of the request's version.
      for (const item of list.items.slice(1)) expect(item.object.metadata.resourceVersion).toBe(item.resourceVersion);
      for (const item of list.items) {
        expect(item.object).toMatchObject({ apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'web', namespace: 'history', uid } });
        expect(Date.parse(item.time)).not.toBeNaN();
      }
      expect(list.items[2].object.status.phase).toBe('Running');
      expect(list.items[3].object.metadata.labels).toEqual({ tier: 'gold' });
      expect(BigInt(list.metadata.resourceVersion)).toBeGreaterThanOrEqual(versions[0]);
    });

    it('pages with limit and continue, the pages together the whole history', async () => {
      const whole = (await history(`${ns}/pipelines/web/history`)).items;
      const pages: Item[][] = [];
      let token: string | undefined;
      do {
        const page = await history(`${ns}/pipelines/web/history?limit=3${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
        pages.push(page.items);
        token = page.metadata.continue;
      } while (token);
      expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
      expect(pages.flat()).toEqual(whole);
    });

    it('refuses a malformed limit or continue token with 400, as a list does', async () => {
      const badLimit = await app().request('GET', `${ns}/pipelines/web/history?limit=many`);
      expect(badLimit.status).toBe(400);
      expect(badLimit.json).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
      const badToken = await app().request('GET', `${ns}/pipelines/web/history?continue=not-a-token`);
      expect(badToken.status).toBe(400);
      expect(badToken.json.message).toMatch(/^invalid continue token/);
    });

    it('answers YAML, protobuf and a Table with the revision and printer columns', async () => {
      const json = await history(`${ns}/pipelines/web/history`);
      const yaml = await app().request('GET', `${ns}/pipelines/web/history`, { headers: { Accept: 'application/yaml' } });
      expect(yaml.headers['content-type']).toBe('application/yaml');
      expect(parse(yaml.text)).toEqual(json);
      const binary = await requestBytes(app(), 'GET', `${ns}/pipelines/web/history`, { headers: { Accept: protobuf } });
      expect(binary.status).toBe(200);
      expect(binary.headers['content-type']).toBe(protobuf);
      expect(scheme.decode(binary.body)).toEqual(json);
      const rows = (await history(`${ns}/pipelines/web/history`, { Accept: table })) as unknown as {
        kind: string;
        columnDefinitions: { name: string }[];
        rows: { cells: unknown[]; object: any }[];
      };
      expect(rows.kind).toBe('Table');
      expect(rows.columnDefinitions.map((c) => c.name)).toEqual([
        'Revision',
        'Time',
        'Operation',
        'Manager',
        'User',
        'Name',
        'RunnerClass',
        'Replicas',
        'Ready',
        'Phase',
        'Age',
      ]);
      expect(rows.rows.map((r) => [r.cells[0], r.cells[2], r.cells[3], r.cells[4], r.cells[5], r.cells[7]])).toEqual(
        json.items.map((i) => [
          i.resourceVersion,
          i.subresource ? `${i.operation} ${i.subresource}` : i.operation,
          i.fieldManager,
          i.user,
          'web',
          i.object.spec.replicas,
        ]),
      );
      expect(rows.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'web', uid: json.items[0].object.metadata.uid } });
    });
  });

  it('reads the same revisions in every version, across a conversion: written as v1alpha1, updated as v1', async () => {
    const alpha = '/apis/cairn.dev/v1alpha1/namespaces/history/pipelines';
    const { spec, ...rest } = pipeline('converted');
    const { replicas: _replicas, ...alphaSpec } = spec as Record<string, unknown>;
    const created = await app().request('POST', alpha, { body: { ...rest, apiVersion: 'cairn.dev/v1alpha1', spec: { ...alphaSpec, parallelism: 2 } } });
    expect(created.status, created.text).toBe(201);
    expect((await app().request('PATCH', `${ns}/pipelines/converted`, { body: { spec: { replicas: 4 } }, headers: merge })).status).toBe(200);
    const inAlpha = await history(`${alpha}/converted/history`);
    const inV1 = await history(`${ns}/pipelines/converted/history`);
    const inBeta = await history('/apis/cairn.dev/v1beta1/namespaces/history/pipelines/converted/history');
    expect(inAlpha.apiVersion).toBe('cairn.dev/v1alpha1');
    expect(inAlpha.items.map((i) => [i.operation, i.object.apiVersion, i.object.spec.parallelism, i.object.spec.replicas])).toEqual([
      ['patch', 'cairn.dev/v1alpha1', 4, undefined],
      ['create', 'cairn.dev/v1alpha1', 2, undefined],
    ]);
    expect(inV1.items.map((i) => [i.operation, i.object.apiVersion, i.object.spec.replicas])).toEqual([
      ['patch', 'cairn.dev/v1', 4],
      ['create', 'cairn.dev/v1', 2],
    ]);
    expect(inBeta.items.map((i) => i.object.apiVersion)).toEqual(['cairn.dev/v1beta1', 'cairn.dev/v1beta1']);
    // The same revisions, each the object of its own version's GET at that resourceVersion's state.
    for (const list of [inAlpha, inBeta]) expect(list.items.map((i) => i.resourceVersion)).toEqual(inV1.items.map((i) => i.resourceVersion));
    const current = await app().request('GET', `${alpha}/converted`);
    expect(inAlpha.items[0].object).toEqual(current.json);
  });

  it('shows every incarnation of a name deleted and created again, and uid narrows to one', async () => {
    const first = (await app().request('POST', `${ns}/pipelines`, { body: pipeline('again') })).json;
    expect((await app().request('DELETE', `${ns}/pipelines/again`)).status).toBe(200);
    const second = (await app().request('POST', `${ns}/pipelines`, { body: pipeline('again', { replicas: 3 }) })).json;
    expect(second.metadata.uid).not.toBe(first.metadata.uid);
    const both = await history(`${ns}/pipelines/again/history`);
    expect(both.items.map((i) => [i.operation, i.object.metadata.uid])).toEqual([
      ['create', second.metadata.uid],
      ['delete', first.metadata.uid],
      ['create', first.metadata.uid],
    ]);
    const firstOnly = await history(`${ns}/pipelines/again/history?uid=${first.metadata.uid}`);
    expect(firstOnly.items.map((i) => i.operation)).toEqual(['delete', 'create']);
    const secondOnly = await history(`${ns}/pipelines/again/history?uid=${second.metadata.uid}&limit=1`);
    expect(secondOnly.items.map((i) => [i.operation, i.object.spec.replicas])).toEqual([['create', 3]]);
    expect(secondOnly.metadata.continue).toBeUndefined();
  });

  it('reads the history of a RunnerClass, cluster-scoped', async () => {
    const classes = '/apis/cairn.dev/v1/runnerclasses';
    expect((await app().request('POST', `${classes}?fieldManager=ops`, { body: runnerClass('gpu', { image: 'cuda:12' }) })).status).toBe(201);
    const patched = await app().request('PATCH', `${classes}/gpu?fieldManager=ops`, { body: { spec: { maxReplicas: 4 } }, headers: merge });
    expect(patched.status).toBe(200);
    const list = await history(`${classes}/gpu/history`);
    expect(list.items.map((i) => [i.operation, i.fieldManager, i.object.kind, i.object.spec.maxReplicas ?? null])).toEqual([
      ['patch', 'ops', 'RunnerClass', 4],
      ['create', 'ops', 'RunnerClass', null],
    ]);
    const rows = (await history(`${classes}/gpu/history`, { Accept: table })) as unknown as { columnDefinitions: { name: string }[] };
    expect(rows.columnDefinitions.map((c) => c.name)).toEqual(['Revision', 'Time', 'Operation', 'Manager', 'User', 'Name', 'Image', 'MaxReplicas', 'Age']);
    expect((await app().request('GET', `/apis/cairn.dev/v1/namespaces/history/runnerclasses/gpu/history`)).status).toBe(404);
  });

  it('answers 404 NotFound for a name without history, and serves only get', async () => {
    const missing = await app().request('GET', `${ns}/pipelines/never/history`);
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ kind: 'Status', reason: 'NotFound', details: { name: 'never', group: 'cairn.dev', kind: 'pipelines' } });
    await app().request('POST', `${ns}/pipelines`, { body: pipeline('readonly') });
    expect((await app().request('PUT', `${ns}/pipelines/readonly/history`, { body: {} })).status).toBe(404);
    expect((await app().request('DELETE', `${ns}/pipelines/readonly/history`)).status).toBe(404);
  });

  it('is in discovery as pipelines/history and runnerclasses/history, a RevisionList with verbs [get]', async () => {
    const legacy = (await app().request('GET', '/apis/cairn.dev/v1beta1')).json;
    expect(legacy.resources).toContainEqual({ name: 'pipelines/history', singularName: '', namespaced: true, kind: 'RevisionList', verbs: ['get'] });
    expect(legacy.resources).toContainEqual({ name: 'runnerclasses/history', singularName: '', namespaced: false, kind: 'RevisionList', verbs: ['get'] });
    const aggregated = await app().request('GET', '/apis', { headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    const v1 = aggregated.json.items.find((g: any) => g.metadata.name === 'cairn.dev').versions.find((v: any) => v.version === 'v1');
    const pipelines = v1.resources.find((r: any) => r.resource === 'pipelines');
    expect(pipelines.subresources).toContainEqual({
      subresource: 'history',
      responseKind: { group: 'cairn.dev', version: 'v1', kind: 'RevisionList' },
      verbs: ['get'],
    });
  });

  it('answers 410 Expired for a continue token whose revisions compaction removed', async () => {
    await app().request('POST', `${ns}/pipelines`, { body: pipeline('compacted') });
    for (const replicas of [2, 3, 4]) await app().request('PATCH', `${ns}/pipelines/compacted`, { body: { spec: { replicas } }, headers: merge });
    const first = await history(`${ns}/pipelines/compacted/history?limit=1`);
    expect(first.metadata.continue).toBeDefined();
    await app().store.compact(0);
    const expired = await app().request('GET', `${ns}/pipelines/compacted/history?limit=1&continue=${encodeURIComponent(first.metadata.continue!)}`);
    expect(expired.status).toBe(410);
    expect(expired.json).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    // The newest state of a live object stays.
    expect((await history(`${ns}/pipelines/compacted/history`)).items.map((i) => i.object.spec.replicas)).toEqual([4]);
  });
});
