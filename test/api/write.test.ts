/**
 * Write options as kube-apiserver takes them: dryRun=All on every mutating verb,
 * and fieldValidation for unknown and duplicate fields; options kube's validation
 * refuses are a 422 on `<Verb>Options.meta.k8s.io`, as kube-apiserver 1.34 answers; the
 * object of a PUT or PATCH checked against its URL, and the methods a path does not take.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { inProcessApp } from '../support/in-process-app.js';
import { pipeline } from '../support/test-server.js';
import { openWatch } from '../support/watch-client.js';
import { failureStatus } from '../support/status-error.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/writes/pipelines';
const merge = { 'Content-Type': 'application/merge-patch+json' };

describe('write options', () => {
  const server = inProcessApp([cairnGroup]);

  it('dry-runs every mutating verb: validated and defaulted, nothing persisted, no event', async () => {
    const held = (await server().request('POST', pipelines, { body: { ...pipeline('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } } }))
      .json;
    const created = (await server().request('POST', pipelines, { body: pipeline('real') })).json;
    const watch = await openWatch(server(), `${pipelines}?watch=true&resourceVersion=${created.metadata.resourceVersion}`);

    const dryCreate = await server().request('POST', `${pipelines}?dryRun=All`, { body: pipeline('dry', { replicas: undefined }) });
    expect(dryCreate.status).toBe(201);
    expect(dryCreate.json.spec.replicas).toBe(1);
    expect(dryCreate.json.metadata.uid).toEqual(expect.any(String));
    const invalidDry = await server().request('POST', `${pipelines}?dryRun=All`, { body: pipeline('dry', { replicas: -1 }) });
    expect(invalidDry.status).toBe(422);
    const dryUpdate = await server().request('PUT', `${pipelines}/real?dryRun=All`, { body: { ...created, spec: { ...created.spec, replicas: 4 } } });
    expect(dryUpdate.json.spec.replicas).toBe(4);
    const dryPatch = await server().request('PATCH', `${pipelines}/real?dryRun=All`, { body: { spec: { replicas: 5 } }, headers: merge });
    expect(dryPatch.json.spec.replicas).toBe(5);
    const dryApply = await server().request('PATCH', `${pipelines}/real?dryRun=All&fieldManager=dry`, {
      body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'real', labels: { applied: 'yes' } } },
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    expect(dryApply.json.metadata.labels).toEqual({ applied: 'yes' });
    const dryStatus = await server().request('PATCH', `${pipelines}/real/status?dryRun=All`, { body: { status: { phase: 'Running' } }, headers: merge });
    expect(dryStatus.json.status.phase).toBe('Running');
    const dryScale = await server().request('PATCH', `${pipelines}/real/scale?dryRun=All`, { body: { spec: { replicas: 6 } }, headers: merge });
    expect(dryScale.json).toMatchObject({ kind: 'Scale', spec: { replicas: 6 } });
    const dryDelete = await server().request('DELETE', `${pipelines}/real`, { body: { dryRun: ['All'] } });
    expect(dryDelete.status).toBe(200);
    // Answered as listed, as kube answers a deletecollection: the finalized object unmarked; and it stays as it was.
    const dryCollection = await server().request('DELETE', `${pipelines}?dryRun=All`);
    expect(dryCollection.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['held', 'real']);
    expect(dryCollection.json.items[0]).toEqual(held);

    const stored = (await server().request('GET', `${pipelines}/real`)).json;
    expect(stored.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(stored.spec.replicas).toBe(1);
    expect(stored.status).toBeUndefined();
    expect(stored.metadata.labels).toBeUndefined();
    expect((await server().request('GET', `${pipelines}/held`)).json).toEqual(held);
    expect((await server().request('GET', `${pipelines}/dry`)).status).toBe(404);
    // The first event is the first real write.
    await server().request('PATCH', `${pipelines}/real`, { body: { spec: { replicas: 2 } }, headers: merge });
    const [event] = await watch.waitFor(1);
    expect(event).toMatchObject({ type: 'MODIFIED', object: { spec: { replicas: 2 } } });
    watch.close();
  });

  it('refuses duplicate and unknown fields under Strict, warns under Warn, ignores under Ignore', async () => {
    const raw =
      '{"apiVersion":"cairn.dev/v1","kind":"Pipeline","metadata":{"name":"NAME"},"spec":{"runnerClassName":"standard","replicas":1,"replicas":2,"bogus":true}}';
    const strict = await server().request('POST', `${pipelines}?fieldValidation=Strict`, { body: raw.replace('NAME', 'strict') });
    expect(strict.status).toBe(400);
    expect(strict.json.message).toBe(
      'Pipeline in version "v1" cannot be handled as a Pipeline: strict decoding error: duplicate field "spec.replicas", unknown field "spec.bogus"',
    );
    const warn = await server().request('POST', pipelines, { body: raw.replace('NAME', 'warned') });
    expect(warn.status).toBe(201);
    expect(warn.headers['warning']).toEqual('299 - "duplicate field \\"spec.replicas\\"", 299 - "unknown field \\"spec.bogus\\""');
    expect(warn.json.spec).toEqual(expect.objectContaining({ replicas: 2 }));
    expect(warn.json.spec.bogus).toBeUndefined();
    const ignored = await server().request('POST', `${pipelines}?fieldValidation=Ignore`, { body: raw.replace('NAME', 'ignored') });
    expect(ignored.status).toBe(201);
    expect(ignored.headers['warning']).toBeUndefined();
    const patch = await server().request('PATCH', `${pipelines}/warned?fieldValidation=Strict`, {
      body: '{"spec":{"replicas":3,"replicas":4}}',
      headers: merge,
    });
    // kube's patcher: a 422 on the patch, quoting the patched object.
    expect(patch.status).toBe(422);
    expect(patch.json.message).toMatch(/^ "" is invalid: patch: Invalid value: ".*": strict decoding error: duplicate field "spec.replicas"$/);
  });
});

/** A cause of kube's 422 on request options. */
interface Cause {
  readonly reason: string;
  readonly message: string;
  readonly field: string;
}

/** kube's 422 on `<kind>.meta.k8s.io`: no name, a cause per field error. */
function optionsInvalid(kind: string, causes: readonly Cause[]) {
  const summary = causes.map((c) => `${c.field}: ${c.message}`);
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${kind}.meta.k8s.io "" is invalid: ${summary.length === 1 ? summary[0] : `[${summary.join(', ')}]`}`,
    reason: 'Invalid',
    details: { group: 'meta.k8s.io', kind, causes },
    code: 422,
  };
}

const dryRunBogus: Cause = { reason: 'FieldValueNotSupported', message: 'Unsupported value: ["Bogus"]: supported values: "All"', field: 'dryRun' };
const fieldValidation = (value: string): Cause => ({
  reason: 'FieldValueNotSupported',
  message: `Unsupported value: "${value}": supported values: "", "Ignore", "Strict", "Warn"`,
  field: 'fieldValidation',
});

describe('write options kube refuses (in process)', () => {
  const app = inProcessApp([cairnGroup]);
  const path = '/apis/cairn.dev/v1/namespaces/options/pipelines';
  const body = { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'opts' }, spec: {} };
  beforeAll(async () => {
    expect((await app().request('POST', path, { body })).status).toBe(201);
  });

  // As kube-apiserver 1.34 answers them (observed against a CustomResource).
  it.each<[string, string, string, unknown, ReturnType<typeof optionsInvalid>]>([
    ['a create with dryRun=Bogus', 'POST', '?dryRun=Bogus', body, optionsInvalid('CreateOptions', [dryRunBogus])],
    [
      'a create with dryRun=All&dryRun=Bogus',
      'POST',
      '?dryRun=All&dryRun=Bogus',
      body,
      optionsInvalid('CreateOptions', [{ ...dryRunBogus, message: 'Unsupported value: ["All","Bogus"]: supported values: "All"' }]),
    ],
    ['a create with fieldValidation in lower case', 'POST', '?fieldValidation=strict', body, optionsInvalid('CreateOptions', [fieldValidation('strict')])],
    [
      "a create with every option wrong, in kube's order",
      'POST',
      `?fieldValidation=Bogus&dryRun=Bogus&fieldManager=${'m'.repeat(129)}`,
      body,
      optionsInvalid('CreateOptions', [
        { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 128 bytes', field: 'fieldManager' },
        dryRunBogus,
        fieldValidation('Bogus'),
      ]),
    ],
    [
      'a create with a fieldManager that is not printable',
      'POST',
      '?fieldManager=a%01b',
      body,
      optionsInvalid('CreateOptions', [
        { reason: 'FieldValueInvalid', message: 'Invalid value: "a\\x01b": invalid character U+0001 (at position 1)', field: 'fieldManager' },
      ]),
    ],
    ['a create with dryRun=Bogus and no body', 'POST', '?dryRun=Bogus', '', optionsInvalid('CreateOptions', [dryRunBogus])],
    ['an update with fieldValidation=Bogus', 'PUT', '/opts?fieldValidation=Bogus', body, optionsInvalid('UpdateOptions', [fieldValidation('Bogus')])],
    ['an update with dryRun=Bogus', 'PUT', '/opts?dryRun=Bogus', body, optionsInvalid('UpdateOptions', [dryRunBogus])],
    [
      'a merge patch with force and dryRun=Bogus',
      'PATCH',
      '/opts?force=true&dryRun=Bogus',
      {},
      optionsInvalid('PatchOptions', [
        { reason: 'FieldValueForbidden', message: 'Forbidden: may not be specified for non-apply patch', field: 'force' },
        dryRunBogus,
      ]),
    ],
    ['a patch with fieldValidation=Bogus', 'PATCH', '/opts?fieldValidation=Bogus', {}, optionsInvalid('PatchOptions', [fieldValidation('Bogus')])],
    ['a delete with dryRun=Bogus in the query', 'DELETE', '/opts?dryRun=Bogus', undefined, optionsInvalid('DeleteOptions', [dryRunBogus])],
    ['a delete with dryRun Bogus in the body', 'DELETE', '/opts', { dryRun: ['Bogus'] }, optionsInvalid('DeleteOptions', [dryRunBogus])],
    ['a deletecollection with dryRun=Bogus in the query', 'DELETE', '?dryRun=Bogus', undefined, optionsInvalid('DeleteOptions', [dryRunBogus])],
    ['a deletecollection with dryRun Bogus in the body', 'DELETE', '', { dryRun: ['Bogus'] }, optionsInvalid('DeleteOptions', [dryRunBogus])],
  ])('refuses %s with 422', async (_, method, suffix, requestBody, expected) => {
    const headers = method === 'PATCH' ? { 'Content-Type': 'application/merge-patch+json' } : undefined;
    const res = await app().request(method, `${path}${suffix}`, { body: requestBody, headers });
    expect(res.json).toEqual(expected);
    expect(res.status).toBe(422);
  });

  it('takes the DeleteOptions of a body sent and ignores the query then, as kube does', async () => {
    const res = await app().request('DELETE', `${path}/opts?dryRun=Bogus&propagationPolicy=Sometimes`, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] },
    });
    expect(res.status, res.text).toBe(200);
    expect((await app().request('GET', `${path}/opts`)).status).toBe(200);
  });

  it('takes fieldValidation as kube spells it, and an empty one as Warn', async () => {
    for (const value of ['Strict', 'Warn', 'Ignore', '']) {
      const res = await app().request('POST', `${path}?dryRun=All&fieldValidation=${value}`, { body: { ...body, metadata: { name: 'fv' } } });
      expect(res.status, `${value}: ${res.text}`).toBe(201);
    }
  });
});

describe('the object of a PUT or PATCH against its URL, as kube’s handlers check it (in process)', () => {
  const app = inProcessApp([cairnGroup]);
  const path = '/apis/cairn.dev/v1/namespaces/object-key/pipelines';
  const status = failureStatus;
  const stored = async () => {
    const created = await app().request('POST', path, {
      body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'a' }, spec: { steps: [{ name: 'fetch' }] } },
    });
    return created.status === 201 ? created.json : (await app().request('GET', `${path}/a`)).json;
  };

  it.each([
    ['without a name', { name: undefined }, 'the name of the object (a based on URL) was undeterminable: name must be provided'],
    ['naming another object', { name: 'b' }, 'the name of the object (b) does not match the name on the URL (a)'],
    ['in another namespace', { namespace: 'elsewhere' }, 'the namespace of the provided object does not match the namespace sent on the request'],
  ])('refuses a PUT of a body %s with 400, changing nothing', async (_, change, message) => {
    const current = await stored();
    const res = await app().request('PUT', `${path}/a`, { body: { ...current, metadata: { ...current.metadata, ...change } } });
    expect(res.json).toEqual(status(400, 'BadRequest', message));
    expect((await app().request('GET', `${path}/a`)).json.metadata.resourceVersion).toBe(current.metadata.resourceVersion);
  });

  it('takes the namespace a PUT leaves out from the URL, and clears one a cluster-scoped object carries', async () => {
    const current = await stored();
    const { namespace: _, ...metadata } = current.metadata;
    const res = await app().request('PUT', `${path}/a`, { body: { ...current, metadata, spec: { ...current.spec, paused: true } } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.metadata.namespace).toBe('object-key');
    const classes = '/apis/cairn.dev/v1/runnerclasses';
    const created = (await app().request('POST', classes, { body: { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name: 'roomy' }, spec: {} } }))
      .json;
    const updated = await app().request('PUT', `${classes}/roomy`, { body: { ...created, metadata: { ...created.metadata, namespace: 'object-key' } } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json.metadata.namespace).toBeUndefined();
  });

  it.each([
    ['changing the name', { name: 'b' }, 'the name of the object (b) does not match the name on the URL (a)'],
    ['removing the name', { name: null }, 'the name of the object (a based on URL) was undeterminable: name must be provided'],
    ['changing the namespace', { namespace: 'elsewhere' }, 'the namespace of the provided object does not match the namespace sent on the request'],
  ])('refuses a merge patch %s with 400 before validation', async (_, metadata, message) => {
    const current = await stored();
    const res = await app().request('PATCH', `${path}/a`, { body: { metadata, spec: { replicas: -1 } }, headers: merge });
    expect(res.json).toEqual(status(400, 'BadRequest', message));
    expect((await app().request('GET', `${path}/a`)).json.metadata.resourceVersion).toBe(current.metadata.resourceVersion);
  });

  it.each([
    ['PUT', path, {}],
    ['PATCH', path, merge],
    ['POST', `${path}/a`, {}],
  ])('answers %s to %s with 405, as kube’s router does for a path without that method', async (method, target, headers) => {
    const res = await app().request(method, target, { body: { metadata: { name: 'a' } }, headers });
    expect(res.json).toEqual(status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}));
  });
});

describe('patches kube’s patcher refuses (in process)', () => {
  const app = inProcessApp([cairnGroup]);
  const path = '/apis/cairn.dev/v1/namespaces/patcher/pipelines';
  const badRequest = (message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });
  /** kube's 422 on a patch: no kind, no name, the quoted value on the field `patch`. */
  const patchInvalid = (quoted: string, detail: string) => {
    const message = `Invalid value: ${JSON.stringify(quoted)}: ${detail}`;
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: ` "" is invalid: patch: ${message}`,
      reason: 'Invalid',
      details: { causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }] },
      code: 422,
    };
  };
  /** JSON as Go writes a map: keys sorted. */
  const sortedJson = (value: unknown): string =>
    JSON.stringify(value, (_, v) =>
      v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
    );
  const live = async () => {
    const created = await app().request('POST', path, {
      body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'a' }, spec: { steps: [{ name: 'fetch' }] } },
    });
    return created.status === 201 ? created.json : (await app().request('GET', `${path}/a`)).json;
  };
  const patch = (type: string, body: unknown, query = '', target = `${path}/a`) =>
    app().request('PATCH', `${target}${query}`, { body, headers: { 'Content-Type': `application/${type}` } });

  it('refuses a merge or JSON patch that leaves an unknown field under Strict with a 422 quoting the patched object', async () => {
    const current = await live();
    const withBogus = sortedJson({ ...current, spec: { ...current.spec, bogus: 1 } });
    const detail = 'strict decoding error: unknown field "spec.bogus"';
    expect((await patch('merge-patch+json', { spec: { bogus: 1 } }, '?fieldValidation=Strict')).json).toEqual(patchInvalid(withBogus, detail));
    const json = await patch('json-patch+json', [{ op: 'add', path: '/spec/bogus', value: 1 }], '?fieldValidation=Strict');
    expect(json.json).toEqual(patchInvalid(withBogus, detail));
    expect((await app().request('GET', `${path}/a`)).json.metadata.resourceVersion).toBe(current.metadata.resourceVersion);
  });

  it('quotes a strategic merge patch itself, as Go prints a map', async () => {
    await live();
    const res = await patch('strategic-merge-patch+json', { spec: { bogus: 1, replicas: 2 } }, '?fieldValidation=Strict');
    expect(res.json).toEqual(patchInvalid('map[spec:map[bogus:1 replicas:2]]', 'strict decoding error: unknown field "spec.bogus"'));
  });

  it('refuses a patch that leaves a Scale of the wrong types with a 422 naming the Go field', async () => {
    await live();
    const res = await patch('merge-patch+json', { spec: { replicas: 'x' } }, '', `${path}/a/scale`);
    expect(res.status, res.text).toBe(422);
    expect(res.json.message).toMatch(
      /^ "" is invalid: patch: Invalid value: ".*": json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32$/,
    );
  });

  it.each([
    ['an object', {}, '', 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'],
    ['an object, under Ignore', {}, '?fieldValidation=Ignore', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch'],
    ['a string operation', ['add'], '', 'error decoding patch: json: cannot unmarshal string into Go value of type handlers.jsonPatchOp'],
    [
      'a number op',
      [{ op: 1, path: '/spec' }],
      '?fieldValidation=Strict',
      'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string',
    ],
  ])('refuses a JSON Patch that is %s with 400 in Go’s words', async (_, body, query, message) => {
    await live();
    expect((await patch('json-patch+json', body, query)).json).toEqual(badRequest(message));
  });
});
