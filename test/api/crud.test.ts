/**
 * The API in process: CRUD, validation and the Status
 * errors kube-apiserver would answer with.
 */
import { describe, expect, it } from 'vitest';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { inProcessApp } from '../support/in-process-app.js';
import { pipeline } from '../support/test-server.js';
import { failureStatus } from '../support/status-error.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/default/pipelines';
const runnerClasses = '/apis/cairn.dev/v1/runnerclasses';

describe('CRUD', () => {
  const server = inProcessApp([cairnGroup]);

  it('creates a Pipeline with system metadata and defaults', async () => {
    const res = await server().request('POST', pipelines, { body: pipeline('create-me', {}, { team: 'data' }) });
    expect(res.status).toBe(201);
    const meta = res.json.metadata;
    expect(meta.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(meta.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(meta.resourceVersion).toMatch(/^\d+$/);
    expect(meta.generation).toBe(1);
    expect(meta.namespace).toBe('default');
    expect(res.json.spec.replicas).toBe(1);
    const got = await server().request('GET', `${pipelines}/create-me`);
    expect(got.status).toBe(200);
    expect(got.json).toEqual(res.json);
  });

  it('keeps zero values as sent', async () => {
    const res = await server().request('POST', pipelines, { body: pipeline('zeros', { replicas: 0, runnerClassName: '', paused: false, steps: [] }) });
    expect(res.status).toBe(201);
    expect(res.json.spec).toEqual({ replicas: 0, runnerClassName: '', paused: false, steps: [] });
  });

  it('generates names from generateName', async () => {
    const body = pipeline('');
    body.metadata = { generateName: 'gen-' } as never;
    const res = await server().request('POST', pipelines, { body });
    expect(res.status).toBe(201);
    expect(res.json.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
  });

  it('refuses a duplicate with 409 AlreadyExists', async () => {
    await server().request('POST', pipelines, { body: pipeline('dup') });
    const res = await server().request('POST', pipelines, { body: pipeline('dup') });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'AlreadyExists', code: 409 });
    expect(res.json.message).toBe('pipelines.cairn.dev "dup" already exists');
    expect(res.json.details).toMatchObject({ name: 'dup', group: 'cairn.dev', kind: 'pipelines' });
  });

  it('answers a missing object with 404 NotFound', async () => {
    const res = await server().request('GET', `${pipelines}/nope`);
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404, message: 'pipelines.cairn.dev "nope" not found' });
  });

  it('lists one namespace and all namespaces', async () => {
    await server().request('POST', '/apis/cairn.dev/v1/namespaces/other/pipelines', { body: pipeline('elsewhere') });
    await server().request('POST', pipelines, { body: pipeline('listed') });
    const one = await server().request('GET', '/apis/cairn.dev/v1/namespaces/other/pipelines');
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({ apiVersion: 'cairn.dev/v1', kind: 'PipelineList' });
    expect(one.json.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(one.json.items.map((p: any) => p.metadata.name)).toEqual(['elsewhere']);
    const all = await server().request('GET', '/apis/cairn.dev/v1/pipelines');
    const names = all.json.items.map((p: any) => `${p.metadata.namespace}/${p.metadata.name}`);
    expect(names).toContain('other/elsewhere');
    expect(names).toContain('default/listed');
  });

  it('serves cluster-scoped RunnerClasses', async () => {
    const body = { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name: 'large' }, spec: { image: 'alpine', maxReplicas: 10 } };
    const res = await server().request('POST', runnerClasses, { body });
    expect(res.status).toBe(201);
    expect(res.json.metadata.namespace).toBeUndefined();
    expect((await server().request('GET', `${runnerClasses}/large`)).json.spec).toEqual({ image: 'alpine', maxReplicas: 10 });
    expect((await server().request('GET', runnerClasses)).json.kind).toBe('RunnerClassList');
    const namespaced = await server().request('POST', runnerClasses, { body: { ...body, metadata: { name: 'x', namespace: 'default' } } });
    expect(namespaced.status).toBe(400);
    expect((await server().request('GET', '/apis/cairn.dev/v1/namespaces/default/runnerclasses')).status).toBe(404);
  });

  it('updates with optimistic concurrency and bumps generation only on spec changes', async () => {
    const created = (await server().request('POST', pipelines, { body: pipeline('upd') })).json;
    const labelled = { ...created, metadata: { ...created.metadata, labels: { a: 'b' } } };
    const res1 = await server().request('PUT', `${pipelines}/upd`, { body: labelled });
    expect(res1.status).toBe(200);
    expect(res1.json.metadata.generation).toBe(1);
    expect(Number(res1.json.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
    const withStatus = { ...res1.json, status: { phase: 'Running' } };
    const res2 = await server().request('PUT', `${pipelines}/upd`, { body: withStatus });
    expect(res2.json.metadata.generation).toBe(1);
    const scaled = { ...res2.json, spec: { ...res2.json.spec, replicas: 4 } };
    const res3 = await server().request('PUT', `${pipelines}/upd`, { body: scaled });
    expect(res3.json.metadata.generation).toBe(2);
    // The object read before these writes is stale now.
    const stale = await server().request('PUT', `${pipelines}/upd`, { body: { ...created, spec: { ...created.spec, replicas: 9 } } });
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    expect(stale.json.message).toContain('the object has been modified; please apply your changes to the latest version and try again');
    // A generation or creationTimestamp a client sends is not taken (as kube's rest.BeforeUpdate); a uid not the object's fails as a precondition.
    const forged = await server().request('PUT', `${pipelines}/upd`, {
      body: { ...res3.json, metadata: { ...res3.json.metadata, generation: 77, creationTimestamp: '2000-01-01T00:00:00Z' } },
    });
    expect(forged.status, forged.text).toBe(200);
    expect(forged.json.metadata).toMatchObject({ generation: 2, creationTimestamp: res3.json.metadata.creationTimestamp });
    const refused = await server().request('PUT', `${pipelines}/upd`, { body: { ...forged.json, metadata: { ...forged.json.metadata, uid: 'forged' } } });
    expect(refused.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Operation cannot be fulfilled on pipelines.cairn.dev "upd": StorageError: invalid object, Code: 4, Key: /registry/cairn.dev/pipelines/default/upd, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: forged, UID in object meta: ${created.metadata.uid}`,
      reason: 'Conflict',
      details: { name: 'upd', group: 'cairn.dev', kind: 'pipelines' },
      code: 409,
    });
    expect((await server().request('PUT', `${pipelines}/absent`, { body: pipeline('absent') })).status).toBe(404);
  });

  it('patches with JSON Patch and merge patch', async () => {
    await server().request('POST', pipelines, { body: pipeline('patched') });
    const merge = await server().request('PATCH', `${pipelines}/patched`, {
      body: { metadata: { labels: { env: 'prod' } }, spec: { replicas: 5 } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(merge.status).toBe(200);
    expect(merge.json.metadata.labels).toEqual({ env: 'prod' });
    expect(merge.json.spec.replicas).toBe(5);
    expect(merge.json.metadata.generation).toBe(2);
    const json = await server().request('PATCH', `${pipelines}/patched`, {
      body: [
        { op: 'test', path: '/spec/replicas', value: 5 },
        { op: 'replace', path: '/spec/replicas', value: 6 },
      ],
      headers: { 'Content-Type': 'application/json-patch+json' },
    });
    expect(json.status).toBe(200);
    expect(json.json.spec.replicas).toBe(6);
    const failed = await server().request('PATCH', `${pipelines}/patched`, {
      body: [{ op: 'test', path: '/spec/replicas', value: 1 }],
      headers: { 'Content-Type': 'application/json-patch+json' },
    });
    // kube's generic 422 for a patch that does not apply: it says no more.
    expect(failed.json).toEqual(failureStatus(422, 'Invalid', 'the server rejected our request due to an error in our request', {}));
    const stale = await server().request('PATCH', `${pipelines}/patched`, {
      body: { metadata: { resourceVersion: merge.json.metadata.resourceVersion }, spec: { replicas: 1 } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(stale.status).toBe(409);
    const unsupported = await server().request('PATCH', `${pipelines}/patched`, { body: {}, headers: { 'Content-Type': 'text/plain' } });
    // No details, as kube's negotiation error.
    expect(unsupported.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
      reason: 'UnsupportedMediaType',
      code: 415,
    });
    const missing = await server().request('PATCH', `${pipelines}/nope`, { body: {}, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(missing.status).toBe(404);
  });

  it('deletes with DeleteOptions, an empty JSON body or none, and honours preconditions and dryRun', async () => {
    const a = (await server().request('POST', pipelines, { body: pipeline('del-a') })).json;
    await server().request('POST', pipelines, { body: pipeline('del-b') });
    await server().request('POST', pipelines, { body: pipeline('del-c') });
    const wrongUid = await server().request('DELETE', `${pipelines}/del-a`, { body: { preconditions: { uid: 'other' } } });
    expect(wrongUid.status).toBe(409);
    expect(wrongUid.json).toMatchObject({
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on Pipeline.cairn.dev "del-a": the UID in the precondition (other) does not match the UID in record (${a.metadata.uid}). The object might have been deleted and then recreated`,
      details: { name: 'del-a', group: 'cairn.dev', kind: 'Pipeline' },
    });
    const dry = await server().request('DELETE', `${pipelines}/del-a`, { body: { propagationPolicy: 'Background', dryRun: ['All'] } });
    expect(dry.status).toBe(200);
    expect((await server().request('GET', `${pipelines}/del-a`)).status).toBe(200);
    const res = await server().request('DELETE', `${pipelines}/del-a`, { body: { propagationPolicy: 'Background', preconditions: { uid: a.metadata.uid } } });
    expect(res.status).toBe(200);
    expect(res.json.metadata.name).toBe('del-a');
    expect((await server().request('GET', `${pipelines}/del-a`)).status).toBe(404);
    const empty = await server().request('DELETE', `${pipelines}/del-b`, { body: '', headers: { 'Content-Type': 'application/json' } });
    expect(empty.status).toBe(200);
    const none = await server().request('DELETE', `${pipelines}/del-c`);
    expect(none.status).toBe(200);
    expect(none.json.metadata.name).toBe('del-c');
    expect((await server().request('DELETE', `${pipelines}/del-b`)).status).toBe(404);
    expect((await server().request('GET', `${pipelines}/del-c`)).status).toBe(404);
  });

  it('persists nothing on dryRun create', async () => {
    const res = await server().request('POST', `${pipelines}?dryRun=All`, { body: pipeline('dry') });
    expect(res.status).toBe(201);
    expect(res.json.metadata.uid).toBeTruthy();
    expect((await server().request('GET', `${pipelines}/dry`)).status).toBe(404);
  });

  it('reads and writes YAML', async () => {
    const yaml = 'apiVersion: cairn.dev/v1\nkind: Pipeline\nmetadata:\n  name: yaml-in\nspec:\n  replicas: 2\n';
    const res = await server().request('POST', pipelines, { body: yaml, headers: { 'Content-Type': 'application/yaml', Accept: 'application/yaml' } });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toContain('application/yaml');
    expect(res.text).toContain('name: yaml-in');
    expect(res.text).toContain('replicas: 2');
  });

  it('negotiates: JSON for */* and a Table-first Accept, 406 for what it cannot produce', async () => {
    const star = await server().request('GET', pipelines, { headers: { Accept: '*/*' } });
    expect(star.headers['content-type']).toContain('application/json');
    const table = await server().request('GET', pipelines, {
      headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json' },
    });
    expect(table.json).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    // A Table has no protobuf, as in kube (test/api/protobuf.test.ts covers protobuf itself).
    const protoTable = await server().request('GET', pipelines, { headers: { Accept: 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io' } });
    // kube's 406 lists the media types it writes, never the transformations (NegotiateOutputMediaType).
    const notAcceptable = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      reason: 'NotAcceptable',
      code: 406,
    };
    expect(protoTable.status).toBe(406);
    expect(protoTable.json).toEqual(notAcceptable);
    const html = await server().request('GET', pipelines, { headers: { Accept: 'text/html' } });
    expect(html.status).toBe(406);
    expect(html.json).toEqual(notAcceptable);
    const created = await server().request('POST', pipelines, { body: pipeline('never-created'), headers: { Accept: 'application/xml' } });
    expect(created.status).toBe(406);
    expect(created.json).toEqual(notAcceptable);
  });

  describe('bad input gets a Status, never a 500', () => {
    const cases: { name: string; method: string; path: string; body: unknown; status: number; reason: string; contains?: string }[] = [
      { name: 'malformed JSON', method: 'POST', path: pipelines, body: '{"apiVersion": ', status: 400, reason: 'BadRequest' },
      { name: 'a JSON array', method: 'POST', path: pipelines, body: [1], status: 400, reason: 'BadRequest' },
      { name: 'an empty body', method: 'POST', path: pipelines, body: '', status: 400, reason: 'BadRequest' },
      { name: 'another kind', method: 'POST', path: pipelines, body: { ...pipeline('k'), kind: 'RunnerClass' }, status: 400, reason: 'BadRequest' },
      {
        name: 'another apiVersion',
        method: 'POST',
        path: pipelines,
        body: { ...pipeline('k'), apiVersion: 'cairn.dev/v9' },
        status: 400,
        reason: 'BadRequest',
      },
      {
        name: 'another namespace',
        method: 'POST',
        path: pipelines,
        body: { ...pipeline('k'), metadata: { name: 'k', namespace: 'x' } },
        status: 400,
        reason: 'BadRequest',
        contains: 'namespace',
      },
      {
        name: 'a name that differs from the URL',
        method: 'PUT',
        path: `${pipelines}/create-me`,
        body: pipeline('other'),
        status: 400,
        reason: 'BadRequest',
        contains: 'does not match the name on the URL',
      },
      { name: 'a path name kube cannot address', method: 'GET', path: `${pipelines}/a%2Fb`, body: undefined, status: 400, reason: 'BadRequest' },
      {
        name: 'a negative replica count',
        method: 'POST',
        path: pipelines,
        body: pipeline('neg', { replicas: -1 }),
        status: 422,
        reason: 'Invalid',
        contains: 'spec.replicas',
      },
      {
        name: 'a wrong type',
        method: 'POST',
        path: pipelines,
        body: pipeline('typ', { replicas: 'three' }),
        status: 422,
        reason: 'Invalid',
        contains: 'spec.replicas',
      },
      {
        name: 'a step without a name',
        method: 'POST',
        path: pipelines,
        body: pipeline('stp', { steps: [{ image: 'x' }] }),
        status: 422,
        reason: 'Invalid',
        contains: 'spec.steps[0].name',
      },
      {
        name: 'an invalid object name',
        method: 'POST',
        path: pipelines,
        body: pipeline('Not_Valid'),
        status: 422,
        reason: 'Invalid',
        contains: 'metadata.name',
      },
      {
        name: 'an invalid label',
        method: 'POST',
        path: pipelines,
        body: pipeline('lbl', {}, { 'bad key!': 'x' }),
        status: 422,
        reason: 'Invalid',
        contains: 'metadata.labels',
      },
      {
        name: 'a missing name',
        method: 'POST',
        path: pipelines,
        body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: {} },
        status: 422,
        reason: 'Invalid',
        contains: 'metadata.name',
      },
      {
        name: 'an unknown field under Strict',
        method: 'POST',
        path: `${pipelines}?fieldValidation=Strict`,
        body: pipeline('unk', { bogus: 1 }),
        status: 400,
        reason: 'BadRequest',
        contains: 'unknown field "spec.bogus"',
      },
      {
        name: 'a bad fieldValidation',
        method: 'POST',
        path: `${pipelines}?fieldValidation=Sometimes`,
        body: pipeline('fv'),
        status: 422,
        reason: 'Invalid',
        contains: 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Sometimes"',
      },
      {
        name: 'a bad dryRun',
        method: 'POST',
        path: `${pipelines}?dryRun=Some`,
        body: pipeline('dr'),
        status: 422,
        reason: 'Invalid',
        contains: 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]',
      },
      { name: 'a bad label selector', method: 'GET', path: `${pipelines}?labelSelector=a%20in%20(`, body: undefined, status: 400, reason: 'BadRequest' },
      {
        name: 'an unsupported field selector',
        method: 'GET',
        path: `${pipelines}?fieldSelector=spec.image%3Dx`,
        body: undefined,
        status: 400,
        reason: 'BadRequest',
        contains: 'spec.image',
      },
      { name: 'an unknown resource', method: 'GET', path: '/apis/cairn.dev/v1/namespaces/default/widgets', body: undefined, status: 404, reason: 'NotFound' },
      { name: 'an unknown version', method: 'GET', path: '/apis/cairn.dev/v7/runnerclasses', body: undefined, status: 404, reason: 'NotFound' },
      { name: 'POST to an object', method: 'POST', path: `${pipelines}/create-me`, body: pipeline('create-me'), status: 405, reason: 'MethodNotAllowed' },
    ];
    it.each(cases)('$name → $status $reason', async ({ method, path, body, status, reason, contains }) => {
      const res = await server().request(method, path, { body });
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toContain('application/json');
      expect(res.json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, code: status });
      if (contains) expect(`${res.json.message} ${JSON.stringify(res.json.details ?? {})}`).toContain(contains);
      if (status === 422) expect(res.json.details.causes.length).toBeGreaterThan(0);
    });

    it('names every invalid field in details.causes', async () => {
      // Two fields the schema refuses (kind-specific rules such as duplicate step names run once the schema passes).
      const res = await server().request('POST', pipelines, { body: pipeline('multi', { replicas: -2, steps: [{ image: 'x' }] }) });
      expect(res.status).toBe(422);
      const fields = res.json.details.causes.map((c: any) => c.field);
      expect(fields).toEqual(expect.arrayContaining(['spec.replicas', 'spec.steps[0].name']));
      expect(res.json.details).toMatchObject({ name: 'multi', group: 'cairn.dev', kind: 'Pipeline' });
      const dup = await server().request('POST', pipelines, { body: pipeline('dupsteps', { steps: [{ name: 'a' }, { name: 'a' }] }) });
      expect(dup.status).toBe(422);
      expect(dup.json.details.causes).toEqual([{ field: 'spec.steps[1].name', reason: 'FieldValueDuplicate', message: 'Duplicate value: "a"' }]);
    });

    it('drops unknown fields with a Warning header by default', async () => {
      const res = await server().request('POST', pipelines, { body: pipeline('warned', { bogus: 1 }) });
      expect(res.status).toBe(201);
      expect(res.json.spec.bogus).toBeUndefined();
      expect(String(res.headers.warning)).toContain('unknown field \\"spec.bogus\\"');
    });
  });
});

describe('Status and list shapes as kube-apiserver writes them (in process)', () => {
  const app = inProcessApp([cairnGroup]);
  const path = '/apis/cairn.dev/v1/namespaces/shapes/pipelines';
  const failure = failureStatus;

  it.each([
    ['POST', path],
    ['PUT', `${path}/x`],
    ['DELETE', `${path}/x`],
  ])('answers a %s body of an unknown media type with a 415 without details', async (method, target) => {
    const res = await app().request(method, target, { body: '{}', headers: { 'Content-Type': 'text/plain' } });
    expect(res.json).toEqual(
      failure(
        415,
        'UnsupportedMediaType',
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      ),
    );
  });

  it('refuses a string over its maxLength with FieldValueTooLong, not showing the value, as kube does', async () => {
    const name = 's'.repeat(64);
    const res = await app().request('POST', path, {
      body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'long-step' }, spec: { steps: [{ name }] } },
    });
    const tooLong = { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 63 bytes', field: 'spec.steps[0].name' };
    expect(res.json).toEqual(
      failure(422, 'Invalid', `Pipeline.cairn.dev "long-step" is invalid: spec.steps[0].name: ${tooLong.message}`, {
        name: 'long-step',
        group: 'cairn.dev',
        kind: 'Pipeline',
        causes: [tooLong],
      }),
    );
  });

  it('refuses a create naming a resourceVersion with 400, as kube’s storage refuses it (there a 500), and not in a dry run', async () => {
    const body = (name: string, resourceVersion: string) => ({
      apiVersion: 'cairn.dev/v1',
      kind: 'Pipeline',
      metadata: { name, resourceVersion },
      spec: {},
    });
    const refused = await app().request('POST', path, { body: body('with-rv', '5') });
    expect(refused.json).toEqual(failure(400, 'BadRequest', 'resourceVersion should not be set on objects to be created'));
    expect((await app().request('GET', `${path}/with-rv`)).status).toBe(404);
    // What kube's storage does not read as a resourceVersion (0, not a uint64) is dropped, as the dry run drops any.
    expect((await app().request('POST', `${path}?dryRun=All`, { body: body('with-rv', '5') })).status).toBe(201);
    for (const [name, resourceVersion] of [
      ['zero-rv', '0'],
      ['text-rv', 'abc'],
    ]) {
      const created = await app().request('POST', path, { body: body(name, resourceVersion) });
      expect(created.status, created.text).toBe(201);
      expect(created.json.metadata.resourceVersion).toMatch(/^[1-9]\d*$/);
    }
  });

  it('leaves details.name out where there is no name', async () => {
    const unnamed = await app().request('POST', path, { body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: {}, spec: {} } });
    const required = { reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' };
    expect(unnamed.json).toEqual(
      failure(422, 'Invalid', `Pipeline.cairn.dev "" is invalid: metadata.name: ${required.message}`, {
        group: 'cairn.dev',
        kind: 'Pipeline',
        causes: [required],
      }),
    );
    const list = await app().request('GET', `${path}?resourceVersionMatch=Exact`);
    const forbidden = {
      reason: 'FieldValueForbidden',
      message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
      field: 'resourceVersionMatch',
    };
    expect(list.json).toEqual(
      failure(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: ${forbidden.message}`, {
        group: 'meta.k8s.io',
        kind: 'ListOptions',
        causes: [forbidden],
      }),
    );
  });

  it.each(['v1', 'v1beta1'])('answers an empty PartialObjectMetadataList (%s) with null items, as Go writes a nil slice', async (version) => {
    for (const query of ['', '?limit=5']) {
      const res = await app().request('GET', `/apis/cairn.dev/v1/namespaces/empty/pipelines${query}`, {
        headers: { Accept: `application/json;as=PartialObjectMetadataList;v=${version};g=meta.k8s.io` },
      });
      expect(res.json).toEqual({
        kind: 'PartialObjectMetadataList',
        apiVersion: `meta.k8s.io/${version}`,
        metadata: { resourceVersion: expect.any(String) },
        items: null,
      });
    }
    // An object list keeps its empty items.
    expect((await app().request('GET', '/apis/cairn.dev/v1/namespaces/empty/pipelines')).json.items).toEqual([]);
  });
});
