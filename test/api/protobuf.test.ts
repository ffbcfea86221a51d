/**
 * application/vnd.kubernetes.protobuf over HTTP, as client-go speaks it: objects,
 * lists, Scale, PartialObjectMetadata, Status errors, discovery and watch streams in
 * every served version, bodies of creates and updates in protobuf, and kube's
 * refusals (a protobuf patch is a 415, a Table has no protobuf).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { protobufMagic } from '../../src/machinery/protobuf/protobuf-scheme.js';
import { openProtobufWatch, protobuf, requestBytes, scheme } from '../support/protobuf-client.js';
import { inProcessApp } from '../support/in-process-app.js';
import { pipeline } from '../support/test-server.js';

// Reads look at `wire`, which only beforeAll writes to; writes go to `wire-writes`.
const pipelinesOf = (version: string, namespace = 'wire') => `/apis/cairn.dev/${version}/namespaces/${namespace}/pipelines`;
const writesOf = (version: string) => pipelinesOf(version, 'wire-writes');
const partial = (as: string) => `${protobuf};as=${as};g=meta.k8s.io;v=v1`;

describe('Protocol Buffers', () => {
  const app = inProcessApp([cairnGroup], { watchBookmarkIntervalMs: 200 });
  const getBytes = (path: string, accept = protobuf) => requestBytes(app(), 'GET', path, { headers: { Accept: accept } });
  /** GETs `path` in protobuf and in JSON; both must answer 200. */
  const both = async (path: string, accept = protobuf) => {
    const binary = await getBytes(path, accept);
    expect(binary.status, binary.body.toString()).toBe(200);
    expect(binary.headers['content-type']).toBe(protobuf);
    expect(binary.body.subarray(0, 4)).toEqual(protobufMagic);
    const json = await app().request('GET', path, { headers: { Accept: accept.replace(protobuf, 'application/json') } });
    expect(json.status).toBe(200);
    return { decoded: scheme.decode(binary.body), json: json.json };
  };

  beforeAll(async () => {
    for (const name of ['alpha', 'beta']) {
      const created = await app().request('POST', pipelinesOf('v1'), { body: pipeline(name, { replicas: 2 }, { app: 'wire' }) });
      expect(created.status, created.text).toBe(201);
    }
  });

  describe.each(['v1', 'v1beta1', 'v1alpha1'])('in %s', (version) => {
    it('gets an object and lists the collection as they are in JSON', async () => {
      const one = await both(`${pipelinesOf(version)}/alpha`);
      expect(one.decoded).toEqual(one.json);
      expect(one.decoded).toMatchObject({ apiVersion: `cairn.dev/${version}`, kind: 'Pipeline', metadata: { name: 'alpha' } });
      const list = await both(pipelinesOf(version));
      expect(list.decoded).toEqual(list.json);
      expect(list.decoded).toMatchObject({ kind: 'PipelineList', items: [{ kind: 'Pipeline', metadata: { name: 'alpha' } }, { metadata: { name: 'beta' } }] });
      const classes = await both(`/apis/cairn.dev/${version}/runnerclasses`);
      expect(classes.decoded).toEqual(classes.json);
    });

    it('gets the Scale and answers PartialObjectMetadata in protobuf', async () => {
      const scale = await both(`${pipelinesOf(version)}/alpha/scale`);
      expect(scale.decoded).toEqual(scale.json);
      expect(scale.decoded).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 2 } });
      const one = await both(`${pipelinesOf(version)}/alpha`, partial('PartialObjectMetadata'));
      expect(one.decoded).toEqual(one.json);
      expect(one.decoded).toMatchObject({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { name: 'alpha', labels: { app: 'wire' } } });
      const list = await both(pipelinesOf(version), partial('PartialObjectMetadataList'));
      expect(list.decoded).toEqual(list.json);
      expect(list.decoded.items).toHaveLength(2);
    });

    it('writes no Table in protobuf: the next acceptable range answers, or 406', async () => {
      const fallback = await app().request('GET', pipelinesOf(version), {
        headers: { Accept: `${partial('Table')},application/json;as=Table;g=meta.k8s.io;v=v1` },
      });
      expect(fallback.status).toBe(200);
      expect(fallback.json).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
      const refused = await getBytes(pipelinesOf(version), partial('Table'));
      expect(refused.status).toBe(406);
      expect(refused.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(refused.body.toString())).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    });

    it('creates and updates from protobuf bodies', async () => {
      const name = `made-${version}`;
      const manifest = { ...pipeline(name, {}, { made: 'protobuf' }), apiVersion: `cairn.dev/${version}` };
      if (version === 'v1alpha1') manifest.spec = { runnerClass: 'standard', steps: [{ name: 'fetch', run: 'echo hi' }] } as never;
      const headers = { 'Content-Type': protobuf, Accept: protobuf };
      const created = await requestBytes(app(), 'POST', writesOf(version), { body: scheme.encode(manifest), headers });
      expect(created.status, created.body.toString()).toBe(201);
      const object = scheme.decode(created.body) as any;
      expect(object).toMatchObject({ apiVersion: `cairn.dev/${version}`, kind: 'Pipeline', metadata: { name, labels: { made: 'protobuf' }, generation: 1 } });
      expect(object.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(object.metadata.managedFields[0]).toMatchObject({ operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: expect.any(Object) });

      const changed = { ...object, metadata: { ...object.metadata, labels: { made: 'again' } } };
      const updated = await requestBytes(app(), 'PUT', `${writesOf(version)}/${name}`, { body: scheme.encode(changed), headers });
      expect(updated.status, updated.body.toString()).toBe(200);
      expect(scheme.decode(updated.body)).toMatchObject({ metadata: { name, labels: { made: 'again' } } });
      const json = await app().request('GET', `${writesOf(version)}/${name}`);
      expect(json.json.metadata.labels).toEqual({ made: 'again' });
    });

    it('watches in protobuf: ADDED, MODIFIED, DELETED and BOOKMARK frames', async () => {
      const name = `watched-${version}`;
      const watch = await openProtobufWatch(app(), `${writesOf(version)}?watch=true&allowWatchBookmarks=true&fieldSelector=metadata.name%3D${name}`);
      try {
        expect(watch.status).toBe(200);
        expect(watch.contentType).toBe(`${protobuf};stream=watch`);
        expect((await app().request('POST', writesOf('v1'), { body: pipeline(name) })).status).toBe(201);
        const scaled = await app().request('PATCH', `${writesOf('v1')}/${name}`, {
          body: { spec: { replicas: 5 } },
          headers: { 'Content-Type': 'application/merge-patch+json' },
        });
        expect(scaled.status).toBe(200);
        expect((await app().request('DELETE', `${writesOf('v1')}/${name}`)).status).toBe(200);
        const seen = () => watch.events.filter((e) => e.type !== 'BOOKMARK').map((e) => e.type);
        const bookmarks = () => watch.events.filter((e) => e.type === 'BOOKMARK');
        await watch.waitFor(3);
        // A watch without resourceVersion is a watch list (kube 1.34): its (empty) initial events end with a bookmark, then periodic ones come.
        while (seen().length < 3 || bookmarks().length < 2) await watch.waitFor(watch.events.length + 1);
        expect(seen()).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
        const events = watch.events.filter((e) => e.type !== 'BOOKMARK');
        for (const event of events) expect(event.object).toMatchObject({ apiVersion: `cairn.dev/${version}`, kind: 'Pipeline', metadata: { name } });
        expect(events[1].object.metadata.generation).toBe(2);
        const [initialEventsEnd, periodic] = bookmarks();
        expect(watch.events[0]).toBe(initialEventsEnd);
        expect(initialEventsEnd.object).toEqual({
          apiVersion: `cairn.dev/${version}`,
          kind: 'Pipeline',
          metadata: { resourceVersion: expect.stringMatching(/^\d+$/), annotations: { 'k8s.io/initial-events-end': 'true' } },
        });
        expect(periodic.object).toEqual({
          apiVersion: `cairn.dev/${version}`,
          kind: 'Pipeline',
          metadata: { resourceVersion: expect.stringMatching(/^\d+$/) },
        });
      } finally {
        watch.close();
      }
    });

    it('watches PartialObjectMetadata in protobuf', async () => {
      const watch = await openProtobufWatch(app(), `${pipelinesOf(version)}?watch=true&fieldSelector=metadata.name%3Dalpha`, partial('PartialObjectMetadata'));
      try {
        const [added] = await watch.waitFor(1);
        expect(added).toMatchObject({ type: 'ADDED', object: { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { name: 'alpha' } } });
        expect(added.object.spec).toBeUndefined();
      } finally {
        watch.close();
      }
    });
  });

  it('prefers protobuf when Accept lists it first, and JSON when JSON comes first', async () => {
    const first = await getBytes(`${pipelinesOf('v1')}/alpha`, `${protobuf}, application/json`);
    expect(first.headers['content-type']).toBe(protobuf);
    const second = await getBytes(`${pipelinesOf('v1')}/alpha`, `application/json, ${protobuf}`);
    expect(second.headers['content-type']).toMatch(/^application\/json/);
  });

  it('answers errors with a Status in protobuf', async () => {
    const missing = await getBytes(`${pipelinesOf('v1')}/nobody`);
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe(protobuf);
    expect(scheme.decode(missing.body)).toMatchObject({
      apiVersion: 'v1',
      kind: 'Status',
      status: 'Failure',
      reason: 'NotFound',
      code: 404,
      details: { name: 'nobody', group: 'cairn.dev', kind: 'pipelines' },
    });
  });

  it('refuses a protobuf patch with 415, and a malformed protobuf body with 400', async () => {
    const patch = await requestBytes(app(), 'PATCH', `${pipelinesOf('v1')}/alpha`, {
      body: scheme.encode(pipeline('alpha')),
      headers: { 'Content-Type': protobuf, Accept: protobuf },
    });
    expect(patch.status).toBe(415);
    expect(scheme.decode(patch.body)).toMatchObject({ kind: 'Status', reason: 'UnsupportedMediaType', code: 415 });
    const malformed = await requestBytes(app(), 'POST', pipelinesOf('v1'), {
      body: Buffer.from('{"kind":"Pipeline"}'),
      headers: { 'Content-Type': protobuf },
    });
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body.toString())).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: expect.stringContaining('protobuf') });
  });

  it('updates the Scale from a protobuf body', async () => {
    expect((await app().request('POST', writesOf('v1'), { body: pipeline('scaled') })).status).toBe(201);
    const path = `${writesOf('v1')}/scaled/scale`;
    const scale = scheme.decode((await getBytes(path)).body) as any;
    const body = scheme.encode({ ...scale, spec: { replicas: 4 } });
    const updated = await requestBytes(app(), 'PUT', path, { body, headers: { 'Content-Type': protobuf, Accept: protobuf } });
    expect(updated.status, updated.body.toString()).toBe(200);
    expect(scheme.decode(updated.body)).toMatchObject({ kind: 'Scale', spec: { replicas: 4 } });
  });

  it('takes DeleteOptions in protobuf', async () => {
    expect((await app().request('POST', writesOf('v1'), { body: pipeline('doomed') })).status).toBe(201);
    const body = scheme.encode({ apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions', dryRun: ['All'] });
    const deleted = await requestBytes(app(), 'DELETE', `${writesOf('v1')}/doomed`, { body, headers: { 'Content-Type': protobuf, Accept: protobuf } });
    expect(deleted.status, deleted.body.toString()).toBe(200);
    expect((await app().request('GET', `${writesOf('v1')}/doomed`)).status).toBe(200);
  });

  it('serves legacy discovery in protobuf', async () => {
    // Cairn serves no core group: the lists of /api are empty, which protobuf does not tell from absent.
    const versions = await both('/api');
    expect(versions.decoded).toEqual({ kind: 'APIVersions' });
    const groups = await both('/apis');
    expect(groups.decoded).toEqual(groups.json);
    const group = await both('/apis/cairn.dev');
    expect(group.decoded).toEqual(group.json);
    const resources = await both('/apis/cairn.dev/v1');
    expect(resources.decoded).toEqual(resources.json);
    expect(resources.decoded).toMatchObject({ kind: 'APIResourceList', groupVersion: 'cairn.dev/v1' });
  });

  it.each(['v2', 'v2beta1'])('serves aggregated discovery %s in protobuf, with its own ETag', async (version) => {
    const as = `g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
    const binary = await getBytes('/apis', `${protobuf};${as},application/json;${as}`);
    expect(binary.status).toBe(200);
    expect(binary.headers['content-type']).toBe(`${protobuf};${as}`);
    const json = await app().request('GET', '/apis', { headers: { Accept: `application/json;${as}` } });
    expect(scheme.decode(binary.body)).toEqual(json.json);
    expect(json.json.items[0].versions[0].resources.length).toBeGreaterThan(0);
    expect(binary.headers.etag).not.toBe(json.headers.etag);
    const cached = await requestBytes(app(), 'GET', '/apis', { headers: { Accept: `${protobuf};${as}`, 'If-None-Match': String(binary.headers.etag) } });
    expect(cached.status).toBe(304);
  });
});
