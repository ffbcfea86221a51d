/**
 * cairn.dev served in v1alpha1, v1beta1 and v1 at once: every verb and subresource in
 * every version, objects stored in v1, and clients of different versions sharing
 * objects — watches, updates that keep what their version cannot see, optimistic
 * concurrency, selectors, printer columns and 422s in the request's version.
 */
import { describe, expect, it } from 'vitest';
import { specAnnotation } from '../../src/apis/cairn/v1alpha1/conversion.js';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { inProcessApp } from '../support/in-process-app.js';
import { runnerClass } from '../support/test-server.js';
import { openWatch } from '../support/watch-client.js';

const versions = ['v1', 'v1beta1', 'v1alpha1'] as const;
type Version = (typeof versions)[number];
const ns = 'versions';
const collection = (version: Version) => `/apis/cairn.dev/${version}/namespaces/${ns}/pipelines`;
const merge = { 'Content-Type': 'application/merge-patch+json' };
const jsonPatch = { 'Content-Type': 'application/json-patch+json' };
const strategic = { 'Content-Type': 'application/strategic-merge-patch+json' };
const apply = { 'Content-Type': 'application/apply-patch+yaml' };
const asTable = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

/** A Pipeline as a client of `version` writes it: 2 runners of class `standard`, one shell step. */
function pipelineIn(version: Version, name: string, labels?: Record<string, string>) {
  const metadata = { name, ...(labels ? { labels } : {}) };
  const spec =
    version === 'v1alpha1'
      ? { runnerClass: 'standard', parallelism: 2, steps: [{ name: 'fetch', image: 'alpine:3.20', run: 'echo hi' }] }
      : { runnerClassName: 'standard', replicas: 2, steps: [{ name: 'fetch', image: 'alpine:3.20', command: ['sh', '-c', 'echo hi'] }] };
  return { apiVersion: `cairn.dev/${version}`, kind: 'Pipeline', metadata, spec };
}

/** The replica count of a Pipeline of `version`. */
const replicasOf = (version: Version, object: any): unknown => (version === 'v1alpha1' ? object.spec.parallelism : object.spec.replicas);
/** The spec field names replicas has in `version`, as a JSON Patch path. */
const replicasPath = (version: Version) => (version === 'v1alpha1' ? '/spec/parallelism' : '/spec/replicas');

describe('three served versions', () => {
  const server = inProcessApp([cairnGroup]);
  const stored = async (name: string) => (await server().request('GET', `${collection('v1')}/${name}`)).json;

  describe.each(versions)('every verb in %s', (version) => {
    const base = collection(version);
    const apiVersion = `cairn.dev/${version}`;
    const replicas = (value: number) => (version === 'v1alpha1' ? { parallelism: value } : { replicas: value });

    it('creates, reads, lists and watches in the request version; stores v1', async () => {
      const before = (await server().request('GET', base)).json.metadata.resourceVersion;
      const created = await server().request('POST', base, { body: pipelineIn(version, `crud-${version}`, { suite: version }) });
      expect(created.status, created.text).toBe(201);
      expect(created.json.apiVersion).toBe(apiVersion);
      expect(replicasOf(version, created.json)).toBe(2);
      const got = await server().request('GET', `${base}/crud-${version}`);
      expect(got.json).toEqual(created.json);
      const list = await server().request('GET', `${base}?labelSelector=suite%3D${version}`);
      expect(list.json).toMatchObject({ apiVersion, kind: 'PipelineList' });
      expect(list.json.items).toEqual([created.json]);
      const watch = await openWatch(server(), `${base}?watch=true&resourceVersion=${before}&labelSelector=suite%3D${version}`);
      try {
        expect(await watch.waitFor(1)).toEqual([{ type: 'ADDED', object: created.json }]);
      } finally {
        watch.close();
      }
      expect(await stored(`crud-${version}`)).toMatchObject({ apiVersion: 'cairn.dev/v1', spec: { replicas: 2, runnerClassName: 'standard' } });
    });

    it('updates and applies every patch type to the object in the request version', async () => {
      const name = `crud-${version}`;
      const current = (await server().request('GET', `${base}/${name}`)).json;
      const put = await server().request('PUT', `${base}/${name}`, { body: { ...current, spec: { ...current.spec, ...replicas(3) } } });
      expect(put.status, put.text).toBe(200);
      expect(replicasOf(version, put.json)).toBe(3);
      const patches: Array<[Record<string, string>, unknown, number]> = [
        [merge, { spec: replicas(4) }, 4],
        [jsonPatch, [{ op: 'replace', path: replicasPath(version), value: 5 }], 5],
        [strategic, { spec: replicas(6) }, 6],
      ];
      for (const [headers, body, expected] of patches) {
        const res = await server().request('PATCH', `${base}/${name}`, { body, headers });
        expect(res.status, `${headers['Content-Type']}: ${res.text}`).toBe(200);
        expect(res.json.apiVersion).toBe(apiVersion);
        expect(replicasOf(version, res.json)).toBe(expected);
      }
      const applied = await server().request('PATCH', `${base}/${name}?fieldManager=applier&force=true`, {
        body: { apiVersion, kind: 'Pipeline', metadata: { name }, spec: replicas(7) },
        headers: apply,
      });
      expect(applied.status, applied.text).toBe(200);
      expect(replicasOf(version, applied.json)).toBe(7);
      expect(applied.json.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: 'applier', operation: 'Apply', apiVersion }));
      expect((await stored(name)).spec.replicas).toBe(7);
    });

    it('serves status, scale and log', async () => {
      const name = `crud-${version}`;
      const status = version === 'v1alpha1' ? { phase: 'Running', ready: true } : { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
      const patched = await server().request('PATCH', `${base}/${name}/status`, { body: { status }, headers: merge });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.json).toMatchObject({ apiVersion, status });
      expect((await server().request('GET', `${base}/${name}/status`)).json).toMatchObject({ apiVersion, status });
      expect((await stored(name)).status).toMatchObject({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });

      const scale = await server().request('GET', `${base}/${name}/scale`);
      expect(scale.json).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 7 } });
      const scaled = await server().request('PATCH', `${base}/${name}/scale`, { body: { spec: { replicas: 9 } }, headers: merge });
      expect(scaled.status, scaled.text).toBe(200);
      expect(replicasOf(version, (await server().request('GET', `${base}/${name}`)).json)).toBe(9);
      const put = await server().request('PUT', `${base}/${name}/scale`, { body: { ...scaled.json, spec: { replicas: 8 } } });
      expect(put.status, put.text).toBe(200);

      expect((await server().request('POST', `${base}/${name}/log`, { body: { step: 'fetch', lines: [`hello from ${version}`] } })).status).toBe(201);
      expect((await server().request('GET', `${base}/${name}/log`)).text).toBe(`hello from ${version}\n`);
    });

    it('deletes one object and a collection, answering in the request version', async () => {
      await server().request('POST', base, { body: pipelineIn(version, `gone-${version}-a`, { gone: version }) });
      await server().request('POST', base, { body: pipelineIn(version, `gone-${version}-b`, { gone: version }) });
      const deleted = await server().request('DELETE', `${base}/gone-${version}-a`);
      expect(deleted.status, deleted.text).toBe(200);
      expect(deleted.json.apiVersion).toBe(apiVersion);
      const collectionDeleted = await server().request('DELETE', `${base}?labelSelector=gone%3D${version}`);
      expect(collectionDeleted.status, collectionDeleted.text).toBe(200);
      expect(collectionDeleted.json).toMatchObject({ apiVersion, kind: 'PipelineList' });
      expect(collectionDeleted.json.items.map((item: any) => [item.apiVersion, item.metadata.name])).toEqual([[apiVersion, `gone-${version}-b`]]);
      expect((await server().request('GET', `${base}?labelSelector=gone%3D${version}`)).json.items).toEqual([]);
    });
  });

  describe('mixed-version clients', () => {
    it('a v1alpha1 watch sees objects written in v1 and v1beta1, converted', async () => {
      const watch = await openWatch(server(), `${collection('v1alpha1')}?watch=true&labelSelector=mixed%3Dwatch`);
      try {
        await server().request('POST', collection('v1'), { body: pipelineIn('v1', 'from-v1', { mixed: 'watch' }) });
        await server().request('POST', collection('v1beta1'), { body: pipelineIn('v1beta1', 'from-v1beta1', { mixed: 'watch' }) });
        await server().request('PATCH', `${collection('v1')}/from-v1`, { body: { spec: { replicas: 5 } }, headers: merge });
        const events = await watch.waitFor(3);
        expect(events.map((e) => [e.type, e.object.metadata.name, e.object.apiVersion, e.object.spec.parallelism, e.object.spec.runnerClass])).toEqual([
          ['ADDED', 'from-v1', 'cairn.dev/v1alpha1', 2, 'standard'],
          ['ADDED', 'from-v1beta1', 'cairn.dev/v1alpha1', 2, 'standard'],
          ['MODIFIED', 'from-v1', 'cairn.dev/v1alpha1', 5, 'standard'],
        ]);
        expect(events[0].object.spec.steps).toEqual([{ name: 'fetch', image: 'alpine:3.20', run: 'echo hi' }]);
      } finally {
        watch.close();
      }
    });

    it('an update through v1alpha1 keeps env, paused and a non-shell command', async () => {
      const v1 = pipelineIn('v1', 'keeps');
      const body = {
        ...v1,
        spec: {
          ...v1.spec,
          paused: true,
          steps: [
            { name: 'fetch', image: 'alpine:3.20', command: ['sh', '-c', 'echo hi'], env: [{ name: 'MODE', value: 'fast' }] },
            { name: 'parse', command: ['/bin/parse', '--strict'] },
          ],
        },
      };
      const created = await server().request('POST', collection('v1'), { body });
      expect(created.status, created.text).toBe(201);
      const alpha = (await server().request('GET', `${collection('v1alpha1')}/keeps`)).json;
      expect(alpha.spec).toEqual({
        runnerClass: 'standard',
        parallelism: 2,
        steps: [{ name: 'fetch', image: 'alpine:3.20', run: 'echo hi' }, { name: 'parse' }],
      });
      expect(alpha.metadata.annotations).toHaveProperty([specAnnotation]);
      const updated = await server().request('PUT', `${collection('v1alpha1')}/keeps`, {
        body: { ...alpha, spec: { ...alpha.spec, parallelism: 4, steps: [{ ...alpha.spec.steps[0], run: 'echo bye' }, alpha.spec.steps[1]] } },
      });
      expect(updated.status, updated.text).toBe(200);
      const after = await stored('keeps');
      expect(after.spec).toEqual({
        runnerClassName: 'standard',
        replicas: 4,
        paused: true,
        steps: [
          { name: 'fetch', image: 'alpine:3.20', command: ['sh', '-c', 'echo bye'], env: [{ name: 'MODE', value: 'fast' }] },
          { name: 'parse', command: ['/bin/parse', '--strict'] },
        ],
      });
      // The annotation is v1alpha1's: v1 clients never see it.
      expect(after.metadata.annotations ?? {}).not.toHaveProperty([specAnnotation]);
      expect((await server().request('GET', `${collection('v1beta1')}/keeps`)).json.metadata.annotations ?? {}).not.toHaveProperty([specAnnotation]);
    });

    it('optimistic concurrency holds across versions', async () => {
      await server().request('POST', collection('v1'), { body: pipelineIn('v1', 'racy') });
      const alpha = (await server().request('GET', `${collection('v1alpha1')}/racy`)).json;
      const beta = (await server().request('GET', `${collection('v1beta1')}/racy`)).json;
      expect(alpha.metadata.resourceVersion).toBe(beta.metadata.resourceVersion);
      const won = await server().request('PUT', `${collection('v1beta1')}/racy`, { body: { ...beta, spec: { ...beta.spec, replicas: 3 } } });
      expect(won.status, won.text).toBe(200);
      const lost = await server().request('PUT', `${collection('v1alpha1')}/racy`, { body: { ...alpha, spec: { ...alpha.spec, parallelism: 9 } } });
      expect(lost.status, lost.text).toBe(409);
      expect(lost.json).toMatchObject({ kind: 'Status', reason: 'Conflict' });
      expect((await stored('racy')).spec.replicas).toBe(3);
    });

    it('selects by field and label in every version, with that version’s field names', async () => {
      await server().request('POST', '/apis/cairn.dev/v1/runnerclasses', { body: runnerClass('gpu') });
      const other = pipelineIn('v1', 'selected-other', { mixed: 'select' });
      await server().request('POST', collection('v1'), { body: { ...other, spec: { ...other.spec, runnerClassName: 'gpu' } } });
      await server().request('POST', collection('v1alpha1'), { body: pipelineIn('v1alpha1', 'selected', { mixed: 'select' }) });
      const names = async (version: Version, selector: string) =>
        (await server().request('GET', `${collection(version)}?labelSelector=mixed%3Dselect&fieldSelector=${encodeURIComponent(selector)}`)).json.items.map(
          (item: any) => item.metadata.name,
        );
      expect(await names('v1alpha1', 'spec.runnerClass=gpu')).toEqual(['selected-other']);
      expect(await names('v1beta1', 'spec.runnerClassName=gpu')).toEqual(['selected-other']);
      expect(await names('v1', 'spec.runnerClassName!=gpu')).toEqual(['selected']);
      const refused = await server().request('GET', `${collection('v1alpha1')}?fieldSelector=spec.runnerClassName%3Dgpu`);
      expect(refused.status).toBe(400);
      expect(refused.json.message).toContain('spec.runnerClassName');
    });

    it('prints the columns of every version', async () => {
      for (const version of versions) {
        const table = (await server().request('GET', `${collection(version)}/selected`, { headers: asTable })).json;
        expect(table.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'RunnerClass', 'Replicas', 'Ready', 'Phase', 'Age']);
        expect(table.rows[0].cells.slice(0, 3)).toEqual(['selected', 'standard', 2]);
      }
    });

    it('answers 422 naming the fields of the request version', async () => {
      const bad = pipelineIn('v1alpha1', 'bad');
      const negative = await server().request('POST', collection('v1alpha1'), { body: { ...bad, spec: { ...bad.spec, parallelism: -1 } } });
      expect(negative.status, negative.text).toBe(422);
      expect(negative.json.details.causes.map((c: any) => c.field)).toEqual(['spec.parallelism']);
      expect(negative.json.message).toContain('spec.parallelism');
      // A rule of the hub's validation (no '/' in a RunnerClass name), named as v1alpha1 calls the field.
      const badClass = await server().request('POST', collection('v1alpha1'), { body: { ...bad, spec: { ...bad.spec, runnerClass: 'ml/large' } } });
      expect(badClass.status, badClass.text).toBe(422);
      expect(badClass.json.details.causes.map((c: any) => c.field)).toEqual(['spec.runnerClass']);
      const duplicateEnv = await server().request('POST', collection('v1alpha1'), {
        body: {
          ...bad,
          metadata: {
            name: 'bad',
            annotations: {
              [specAnnotation]: JSON.stringify({
                steps: [
                  {
                    name: 'fetch',
                    env: [
                      { name: 'A', value: '1' },
                      { name: 'A', value: '2' },
                    ],
                  },
                ],
              }),
            },
          },
        },
      });
      expect(duplicateEnv.status, duplicateEnv.text).toBe(422);
      expect(duplicateEnv.json.details.causes.map((c: any) => c.field)).toEqual([`metadata.annotations[${specAnnotation}]`]);
      const malformed = await server().request('POST', collection('v1alpha1'), {
        body: { ...bad, metadata: { name: 'bad', annotations: { [specAnnotation]: '{not json' } } },
      });
      expect(malformed.status, malformed.text).toBe(422);
      expect(malformed.json.details.causes.map((c: any) => c.field)).toEqual([`metadata.annotations[${specAnnotation}]`]);
      // In v1 the annotation is refused outright: v1 expresses those fields itself.
      const planted = await server().request('POST', collection('v1'), {
        body: { ...pipelineIn('v1', 'bad'), metadata: { name: 'bad', annotations: { [specAnnotation]: '{"paused":true}' } } },
      });
      expect(planted.status, planted.text).toBe(422);
      expect((await server().request('GET', `${collection('v1')}/bad`)).status).toBe(404);
    });

    it('records the apiVersion of each manager and finds apply conflicts after conversion', async () => {
      const entryOf = (object: any, manager: string) => object.metadata.managedFields.find((e: any) => e.manager === manager);
      const applyIn = (version: Version, manager: string, spec: Record<string, unknown>, force = false) =>
        server().request('PATCH', `${collection(version)}/owned?fieldManager=${manager}${force ? '&force=true' : ''}`, {
          body: { apiVersion: `cairn.dev/${version}`, kind: 'Pipeline', metadata: { name: 'owned' }, spec },
          headers: apply,
        });
      const created = await server().request('POST', `${collection('v1')}?fieldManager=creator`, { body: pipelineIn('v1', 'owned') });
      expect(entryOf(created.json, 'creator')).toMatchObject({ operation: 'Update', apiVersion: 'cairn.dev/v1' });

      const conflict = await applyIn('v1alpha1', 'alpha', { parallelism: 4 });
      expect(conflict.status, conflict.text).toBe(409);
      expect(conflict.json.message).toBe('Apply failed with 1 conflict: conflict with "creator" using cairn.dev/v1: .spec.replicas');
      expect(conflict.json.details.causes).toEqual([
        { reason: 'FieldManagerConflict', message: 'conflict with "creator" using cairn.dev/v1', field: '.spec.replicas' },
      ]);
      // The value creator set, applied in v1alpha1's words, is shared rather than taken.
      const shared = await applyIn('v1alpha1', 'alpha', { parallelism: 2 });
      expect(shared.status, shared.text).toBe(200);
      expect(entryOf(shared.json, 'alpha')).toMatchObject({
        operation: 'Apply',
        apiVersion: 'cairn.dev/v1alpha1',
        fieldsV1: { 'f:spec': { 'f:parallelism': {} } },
      });
      expect(entryOf(shared.json, 'creator').fieldsV1['f:spec']).toHaveProperty(['f:replicas']);

      const forced = await applyIn('v1alpha1', 'alpha', { parallelism: 4 }, true);
      expect(forced.status, forced.text).toBe(200);
      expect(entryOf(forced.json, 'creator').fieldsV1['f:spec']).not.toHaveProperty(['f:replicas']);
      expect((await stored('owned')).spec.replicas).toBe(4);

      // The v1alpha1 applier now owns what v1beta1 calls spec.replicas.
      const beta = await applyIn('v1beta1', 'beta', { replicas: 6 });
      expect(beta.status, beta.text).toBe(409);
      expect(beta.json.details.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "alpha"', field: '.spec.parallelism' }]);
      // An update through v1beta1 takes it from the applier, as any update does.
      const current = (await server().request('GET', `${collection('v1beta1')}/owned`)).json;
      const put = await server().request('PUT', `${collection('v1beta1')}/owned?fieldManager=editor`, {
        body: { ...current, spec: { ...current.spec, replicas: 7 } },
      });
      expect(put.status, put.text).toBe(200);
      expect(entryOf(put.json, 'alpha')).toBeUndefined();
      expect(entryOf(put.json, 'editor')).toMatchObject({ operation: 'Update', apiVersion: 'cairn.dev/v1beta1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } });
    });

    it('defaults in the request version and again on the hub', async () => {
      const created = await server().request('POST', collection('v1alpha1'), {
        body: { apiVersion: 'cairn.dev/v1alpha1', kind: 'Pipeline', metadata: { name: 'defaulted' }, spec: { runnerClass: 'standard' } },
      });
      expect(created.status, created.text).toBe(201);
      expect(created.json.spec.parallelism).toBe(1);
      expect((await stored('defaulted')).spec.replicas).toBe(1);
    });
  });
});
