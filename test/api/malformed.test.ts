/**
 * Malformed and hostile requests, in process: each answers as kube-apiserver
 * does, with a Status and a 4xx, and changes nothing; the values JSON allows and
 * PostgreSQL does not (U+0000) are stored and returned unchanged.
 */
import { describe, expect, it } from 'vitest';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { maxNestingDepth, maxRequestBodyBytes } from '../../src/machinery/decoding/bounded-decoding.js';
import { inProcessApp } from '../support/in-process-app.js';
import { pipeline, requestTo, type ServerEndpoint, type TestResponse } from '../support/test-server.js';
import { openWatch } from '../support/watch-client.js';
import { failureStatus } from '../support/status-error.js';

const base = '/apis/cairn.dev/v1/namespaces/fz';
const pipelines = `${base}/pipelines`;

function expectStatus(res: TestResponse, code: number, reason?: string): void {
  expect(res.status, res.text).toBe(code);
  expect(res.json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, ...(reason ? { reason } : {}) });
}

/**
 * Sends `chunks` as the body, chunked unless `headers` give a Content-Length, and answers
 * as soon as the response is complete, whether or not the body was all sent: a server
 * that refuses a body before reading it is heard without the rest ever being written.
 */
function sendBody(
  server: ServerEndpoint,
  method: string,
  path: string,
  chunks: readonly Buffer[],
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const req = requestTo(server, path, { method, headers: { 'Content-Type': 'application/json', ...headers }, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: JSON.parse(text) });
        req.destroy();
      });
    });
    // Once answered, the connection is dropped: writing the rest may then fail, as it should.
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    for (const chunk of chunks) req.write(chunk);
    if (headers['Content-Length'] === undefined) req.end();
  });
}

/** `{"a":{"a":…}}` nested `depth` objects deep. */
const nestedJson = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('malformed requests', () => {
  const server = inProcessApp([cairnGroup]);

  const create = async (name: string, body: unknown = pipeline(name)) => {
    const res = await server().request('POST', pipelines, { body });
    expect(res.status, res.text).toBe(201);
    return res.json;
  };

  it.each([[[]], ['a-string'], [7], [true]])('refuses spec %j with 422 naming spec, and stores nothing', async (spec) => {
    const body = { ...pipeline('bad-spec'), spec };
    const res = await server().request('POST', pipelines, { body });
    expectStatus(res, 422, 'Invalid');
    expect(res.json.details.causes).toContainEqual(expect.objectContaining({ field: 'spec', reason: 'FieldValueTypeInvalid' }));
    expect((await server().request('GET', `${pipelines}/bad-spec`)).status).toBe(404);
  });

  it('refuses a DeleteOptions body of the wrong types with 400, and deletes nothing', async () => {
    const created = await create('kept');
    for (const body of [
      { gracePeriodSeconds: 'x' },
      { gracePeriodSeconds: 1.5 },
      { dryRun: 'All' },
      { preconditions: 'x' },
      { orphanDependents: 'yes' },
      { kind: 'Pipeline' },
      [],
    ]) {
      const res = await server().request('DELETE', `${pipelines}/kept`, { body });
      expectStatus(res, 400, 'BadRequest');
    }
    const stale = await server().request('DELETE', `${pipelines}/kept?gracePeriodSeconds=soon`);
    expectStatus(stale, 400, 'BadRequest');
    const after = await server().request('GET', `${pipelines}/kept`);
    expect(after.json.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    // The same body with the right types deletes.
    expect((await server().request('DELETE', `${pipelines}/kept`, { body: { gracePeriodSeconds: 0 } })).status).toBe(200);
  });

  it('refuses bodies nested past the limit with 400 on every write, in JSON and YAML', async () => {
    await create('deep');
    for (const depth of [maxNestingDepth + 1, 5_000, 100_000]) {
      const deep = nestedJson(depth);
      expectStatus(await server().request('POST', pipelines, { body: deep }), 400, 'BadRequest');
      expectStatus(await server().request('POST', pipelines, { body: deep, headers: { 'Content-Type': 'application/yaml' } }), 400, 'BadRequest');
      expectStatus(await server().request('PUT', `${pipelines}/deep`, { body: deep }), 400, 'BadRequest');
      for (const type of ['application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']) {
        const res = await server().request('PATCH', `${pipelines}/deep?fieldManager=fuzz`, { body: deep, headers: { 'Content-Type': type } });
        expectStatus(res, 400, 'BadRequest');
      }
    }
    // Block YAML is as deep as its indentation says.
    const block = Array.from({ length: 2_000 }, (_, i) => `${' '.repeat(i)}a:`).join('\n');
    expectStatus(await server().request('POST', pipelines, { body: block, headers: { 'Content-Type': 'application/yaml' } }), 400, 'BadRequest');
    // Just within the limit decodes, and is answered on its merits (here: a Pipeline, its unknown field dropped, without a name).
    const within = await server().request('POST', pipelines, { body: nestedJson(maxNestingDepth - 1) });
    expectStatus(within, 422, 'Invalid');
    expect(within.json.message).toBe('Pipeline.cairn.dev "" is invalid: metadata.name: Required value: name or generateName is required');
  });

  it('keeps JSON patches from nesting or copying an object past the limits', async () => {
    const created = await create('patched');
    const jsonPatch = (ops: unknown) =>
      server().request('PATCH', `${pipelines}/patched`, { body: ops, headers: { 'Content-Type': 'application/json-patch+json' } });
    // Each copy of x into x.a nests it one level deeper: the bound stops it before anything recurses that deep.
    const value = JSON.parse(nestedJson(100)) as unknown;
    const deepening = [
      { op: 'add', path: '/spec/x', value },
      ...Array.from({ length: maxNestingDepth }, () => ({ op: 'copy', from: '/spec/x', path: `/spec/x/a` })),
    ];
    expectStatus(await jsonPatch(deepening), 422, 'Invalid');
    // Copies that would duplicate more than the body limit (the exponential "billion laughs" of JSON Patch).
    const wide = { op: 'add', path: '/metadata/annotations', value: { big: 'x'.repeat(1_000_000) } };
    const doubling = Array.from({ length: 4 }, (_, i) => ({ op: 'copy', from: '/metadata/annotations/big', path: `/metadata/annotations/big${i}` }));
    expectStatus(await jsonPatch([wide, ...doubling]), 422, 'Invalid');
    const tooMany = Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/kind', value: 'Pipeline' }));
    expectStatus(await jsonPatch(tooMany), 413, 'RequestEntityTooLarge');
    const after = await server().request('GET', `${pipelines}/patched`);
    expect(after.json.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it('answers a broken %-escape in a path with 400', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const res = await server().request(method, `${pipelines}/a%E0%A4%A`, method === 'GET' || method === 'DELETE' ? {} : { body: pipeline('a') });
      expectStatus(res, 400, 'BadRequest');
    }
    expectStatus(await server().request('GET', `${base}%ZZ/pipelines`), 400, 'BadRequest');
  });

  it('parses integer parameters as int64: out of range is a 400', async () => {
    for (const query of ['limit=99999999999999999999', 'limit=9223372036854775808', 'resourceVersion=99999999999999999999', 'timeoutSeconds=1e3']) {
      expectStatus(await server().request('GET', `${pipelines}?${query}`), 400, 'BadRequest');
    }
    // The end of int64 is a limit like any other.
    const largest = await server().request('GET', `${pipelines}?limit=9223372036854775807`);
    expect(largest.status, largest.text).toBe(200);
    const log = await server().request('GET', `${pipelines}/x/log?tailLines=99999999999999999999`);
    expectStatus(log, 400, 'BadRequest');
  });

  it('stores strings holding U+0000 and returns them unchanged, in get, list, watch and the log', async () => {
    const before = await server().request('GET', pipelines);
    const watch = await openWatch(server(), `${pipelines}?watch=true&resourceVersion=${before.json.metadata.resourceVersion}`);
    const odd = 'a\u0000b\u0001c\\u0000d\u0000';
    const body = pipeline('nul', { steps: [{ name: 'fetch', image: 'alpine', command: ['sh', '-c', odd], env: [{ name: 'NUL', value: '\u0000' }] }] });
    body.metadata = { name: 'nul', annotations: { note: odd, [`other`]: '\u0001' } } as never;
    const created = await create('nul', body);
    expect(created.metadata.annotations).toEqual({ note: odd, other: '\u0001' });
    const got = await server().request('GET', `${pipelines}/nul`);
    expect(got.json.spec.steps[0].command[2]).toBe(odd);
    expect(got.json.spec.steps[0].env[0].value).toBe('\u0000');
    const list = await server().request('GET', pipelines);
    expect(list.json.items.find((p: { metadata: { name: string } }) => p.metadata.name === 'nul').metadata.annotations.note).toBe(odd);
    const [event] = await watch.waitFor(1);
    expect(event.object.metadata.annotations.note).toBe(odd);
    watch.close();
    const patched = await server().request('PATCH', `${pipelines}/nul`, {
      body: { metadata: { annotations: { more: '\u0000\u0000' } } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.metadata.annotations).toEqual({ note: odd, other: '\u0001', more: '\u0000\u0000' });
    // A label value is validated as kube validates it: U+0000 is not allowed there (422, not a 500).
    const label = await server().request('POST', pipelines, { body: pipeline('nul-label', {}, { team: 'a\u0000' }) });
    expectStatus(label, 422, 'Invalid');
    // Names and selectors holding it find nothing, as no object can be named so.
    expectStatus(await server().request('GET', `${pipelines}/a%00b`), 404, 'NotFound');
    const selected = await server().request('GET', `${pipelines}?fieldSelector=spec.runnerClassName%3Da%2500`);
    expect(selected.status, selected.text).toBe(200);
    const appended = await server().request('POST', `${pipelines}/nul/log`, { body: { step: 'fetch', lines: [odd, null] } });
    expect(appended.status, appended.text).toBe(201);
    const log = await server().request('GET', `${pipelines}/nul/log`);
    expect(log.text).toBe(`${odd}\n\n`);
  });

  it('reads a null as unset and defaults it, as kube decodes its types', async () => {
    const created = await create('nulls', { ...pipeline('nulls', { replicas: null, paused: null }), status: null });
    expect(created.spec.replicas).toBe(1);
    expect(created.spec).not.toHaveProperty('paused');
    const replaced = await server().request('PUT', `${pipelines}/nulls`, { body: { ...created, spec: { ...created.spec, replicas: null } } });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.json.spec.replicas).toBe(1);
    const patched = await server().request('PATCH', `${pipelines}/nulls`, {
      body: [{ op: 'add', path: '/spec/runnerClassName', value: null }],
      headers: { 'Content-Type': 'application/json-patch+json' },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.spec).not.toHaveProperty('runnerClassName');
  });

  it('decodes Scale and log-append bodies strictly: a field of the wrong type is a 400', async () => {
    const created = await create('scaled');
    const scale = (spec: unknown) =>
      server().request('PUT', `${pipelines}/scaled/scale`, { body: { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'scaled' }, spec } });
    for (const spec of [{ replicas: '3' }, { replicas: 1.5 }, { replicas: 2 ** 31 }, 'x']) expectStatus(await scale(spec), 400, 'BadRequest');
    const append = (body: unknown) => server().request('POST', `${pipelines}/scaled/log`, { body });
    for (const body of [{ lines: 'x' }, { lines: [1] }, { step: 7, lines: [] }, { lines: [['x']] }]) expectStatus(await append(body), 400, 'BadRequest');
    const after = await server().request('GET', `${pipelines}/scaled`);
    expect(after.json.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it('refuses a body over 3 MiB with 413: by its Content-Length before reading it, and at the limit when chunked', async () => {
    const limit = `Request entity too large: limit is ${maxRequestBodyBytes}`;
    const over = Buffer.alloc(maxRequestBodyBytes + 1024, ' ');
    const announced = await sendBody(server(), 'POST', pipelines, [over], { 'Content-Length': String(over.length) });
    expectStatus(announced, 413, 'RequestEntityTooLarge');
    expect(announced.json.message).toBe(limit);
    // Only a few bytes of the announced 4 MiB are ever sent: the answer does not wait for the rest.
    const unsent = await sendBody(server(), 'PUT', `${pipelines}/big`, [Buffer.from('{"kind":')], { 'Content-Length': String(4 * 1024 * 1024) });
    expectStatus(unsent, 413, 'RequestEntityTooLarge');
    const chunked = await sendBody(server(), 'POST', pipelines, [
      Buffer.from(JSON.stringify(pipeline('big')).slice(0, -1) + ',"x":"'),
      over,
      Buffer.from('"}'),
    ]);
    expectStatus(chunked, 413, 'RequestEntityTooLarge');
    expect(chunked.json.message).toBe(limit);
    expect((await server().request('GET', `${pipelines}/big`)).status).toBe(404);
    // Just under the limit is read, and answered on its merits (an unknown field is dropped, as kube's non-strict decoding does).
    const under = JSON.stringify({ ...pipeline('big'), metadata: { name: 'big', annotations: { pad: 'x'.repeat(maxRequestBodyBytes - 1024) } } });
    expect(Buffer.byteLength(under)).toBeLessThan(maxRequestBodyBytes);
    const created = await server().request('POST', pipelines, { body: under });
    expect(created.status, created.text.slice(0, 300)).not.toBe(413);
  });

  it('reads invalid UTF-8 as Go’s decoder does (U+FFFD): a name it spoils is a 422, and nothing is stored', async () => {
    const invalid = Buffer.from([0xc3, 0x28, 0xff]);
    const body = (name: Buffer, note: Buffer) =>
      Buffer.concat([
        Buffer.from(`{"apiVersion":"cairn.dev/v1","kind":"Pipeline","metadata":{"name":"`),
        name,
        Buffer.from(`","annotations":{"note":"`),
        note,
        Buffer.from(`"}},"spec":${JSON.stringify(pipeline('x').spec)}}`),
      ]);
    const spoiled = await sendBody(server(), 'POST', pipelines, [body(Buffer.concat([Buffer.from('utf'), invalid]), Buffer.from('ok'))]);
    expectStatus(spoiled, 422, 'Invalid');
    expect(spoiled.json.details.causes).toContainEqual(expect.objectContaining({ field: 'metadata.name' }));
    expect((await server().request('GET', pipelines)).json.items.some((p: { metadata: { name: string } }) => p.metadata.name.startsWith('utf'))).toBe(false);
    // In free text the bytes become U+FFFD, as kube-apiserver stores them.
    const noted = await sendBody(server(), 'POST', pipelines, [body(Buffer.from('utf-note'), invalid)]);
    expect(noted.status, noted.text).toBe(201);
    expect(noted.json.metadata.annotations.note).toBe('\ufffd(\ufffd');
    // In a path or a selector they are a 400.
    expectStatus(await server().request('GET', `${pipelines}/utf%C3%28`), 400, 'BadRequest');
    expectStatus(await server().request('GET', `${pipelines}?labelSelector=a%3D%C3%28`), 400, 'BadRequest');
  });

  it('refuses path traversal in names and namespaces with a 4xx, reaching nothing else', async () => {
    const created = await create('traversed');
    for (const path of [
      `${pipelines}/..`,
      `${pipelines}/.`,
      `${pipelines}/..%2F..%2Frunnerclasses`,
      `${pipelines}/traversed%2F..%2Ftraversed`,
      `${base}/pipelines/%2E%2E`,
      '/apis/cairn.dev/v1/namespaces/..%2Fkube-system/pipelines/traversed',
      '/apis/cairn.dev/v1/namespaces/%2E%2E/pipelines/traversed',
    ]) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await server().request(method, path, method === 'PUT' ? { body: pipeline('traversed') } : {});
        expect(res.status, `${method} ${path}: ${res.text}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${method} ${path}`).toBeLessThan(500);
        expectStatus(res, res.status);
      }
    }
    for (const name of ['..', '.', '../x', 'a/b', 'a%2Fb']) expectStatus(await server().request('POST', pipelines, { body: pipeline(name) }), 422, 'Invalid');
    const after = await server().request('GET', `${pipelines}/traversed`);
    expect(after.json.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it('treats SQL metacharacters in names, labels and selectors as text: 4xx where they are invalid, no match where they are not', async () => {
    const created = await create('sql', pipeline('sql', {}, { tier: 'web' }));
    const injections = ["x' OR '1'='1", "x'; DROP TABLE cairn_objects; --", 'x" OR 1=1 --', "x\\'); DELETE FROM cairn_events; --"];
    for (const text of injections) {
      expectStatus(await server().request('POST', pipelines, { body: pipeline(text) }), 422, 'Invalid');
      expectStatus(await server().request('POST', pipelines, { body: pipeline('sql-label', {}, { tier: text }) }), 422, 'Invalid');
      expectStatus(await server().request('POST', pipelines, { body: pipeline('sql-label', {}, { [text]: 'v' }) }), 422, 'Invalid');
      // kube's path check refuses only '.', '..', '/' and '%' in a name: any other name is looked up, and not found.
      expectStatus(await server().request('GET', `${pipelines}/${encodeURIComponent(text)}`), 404, 'NotFound');
      expectStatus(await server().request('GET', `${pipelines}?labelSelector=${encodeURIComponent(`tier=${text}`)}`), 400, 'BadRequest');
      expectStatus(await server().request('GET', `${pipelines}?labelSelector=${encodeURIComponent(`tier in (${text})`)}`), 400, 'BadRequest');
      // A field selector's value may be any text but an unescaped '=', ',', '!' or backslash: it matches only an object of that very name.
      const listed = await server().request('GET', `${pipelines}?fieldSelector=${encodeURIComponent(`metadata.name=${text}`)}`);
      if (/[=,!\\]/.test(text)) expectStatus(listed, 400, 'BadRequest');
      else expect(listed.json.items, listed.text).toEqual([]);
    }
    const all = await server().request('GET', `${pipelines}?labelSelector=tier%3Dweb`);
    expect(all.json.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(['sql']);
    expect((await server().request('GET', `${pipelines}/sql`)).json.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });
});

describe('JSON Patch errors as kube-apiserver answers them (in process)', () => {
  const app = inProcessApp([cairnGroup]);
  const path = '/apis/cairn.dev/v1/namespaces/json-patch/pipelines';
  const jsonPatch = (ops: unknown) => app().request('PATCH', `${path}/target`, { body: ops, headers: { 'Content-Type': 'application/json-patch+json' } });
  // kube's NewGenericServerResponse(422): the message says nothing of the operation.
  const rejected = failureStatus(422, 'Invalid', 'the server rejected our request due to an error in our request', {});

  it.each<[string, unknown]>([
    ['an unknown op', [{ op: 'bogus', path: '/spec/x', value: 1 }]],
    ['no op', [{ path: '/spec/x', value: 1 }]],
    ['a null operation', [null]],
    ['no path', [{ op: 'add', value: 1 }]],
    ['a move without from', [{ op: 'move', path: '/spec/x' }]],
    ['a remove of what is not there', [{ op: 'remove', path: '/spec/nothere' }]],
    ['a failing test', [{ op: 'test', path: '/metadata/name', value: 'other' }]],
    ['an index past the end', [{ op: 'add', path: '/spec/steps/9', value: {} }]],
  ])("refuses %s with kube's generic 422, changing nothing", async (_, ops) => {
    const created = await app().request('POST', path, {
      body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'target' }, spec: { steps: [] } },
    });
    const before = created.status === 201 ? created.json : (await app().request('GET', `${path}/target`)).json;
    const res = await jsonPatch(ops);
    expect(res.json).toEqual(rejected);
    expect((await app().request('GET', `${path}/target`)).json.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('refuses an operation that is not an object with 400, and adds null for a missing value, as kube decodes a patch', async () => {
    await app().request('POST', path, { body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'target' }, spec: {} } });
    // Under Ignore, kube's json-patch decodes the patch alone (test/api/write.test.ts has the typed decoding of Strict and Warn).
    const notObject = await app().request('PATCH', `${path}/target?fieldValidation=Ignore`, {
      body: ['add'],
      headers: { 'Content-Type': 'application/json-patch+json' },
    });
    expect(notObject.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'json: cannot unmarshal string into Go value of type jsonpatch.Operation',
      reason: 'BadRequest',
      code: 400,
    });
    const noValue = await jsonPatch([{ op: 'add', path: '/metadata/labels' }]);
    expect(noValue.status, noValue.text).toBe(200);
    expect(noValue.json.metadata.labels).toBeUndefined();
  });
});

describe('a body’s type as kube’s decoders read it (in process)', () => {
  const app = inProcessApp([cairnGroup]);
  const path = '/apis/cairn.dev/v1/namespaces/body-type/pipelines';
  const badRequest = (message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });
  const spec = { runnerClassName: 'standard', steps: [{ name: 'fetch' }] };

  it('takes a kind or apiVersion a body leaves out from the URL, as a built-in kind’s typed decoding does', async () => {
    const created = await app().request('POST', path, { body: { metadata: { name: 'untyped' }, spec } });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.json).slice(0, 2)).toEqual(['apiVersion', 'kind']);
    expect(created.json).toMatchObject({ apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'untyped' } });
    const { kind: _, ...withoutKind } = created.json;
    const updated = await app().request('PUT', `${path}/untyped`, { body: { ...withoutKind, apiVersion: null, spec: { ...spec, paused: true } } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject({ apiVersion: 'cairn.dev/v1', kind: 'Pipeline', spec: { paused: true } });
  });

  it.each([
    ['another version', 'cairn.dev/v1beta1'],
    ['another group', 'apps/v1'],
  ])('refuses a body of %s with 400 naming the apiVersion as sent', async (_, apiVersion) => {
    const res = await app().request('POST', path, { body: { apiVersion, kind: 'Pipeline', metadata: { name: 'other' }, spec } });
    expect(res.json).toEqual(badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (cairn.dev/v1)`));
  });

  it.each([
    ['no kind', { apiVersion: 'cairn.dev/v1' }, 'cairn.dev/v1, Kind='],
    ['no apiVersion', { kind: 'Pipeline' }, '/, Kind=Pipeline'],
    ['another version', { apiVersion: 'cairn.dev/v1beta1', kind: 'Pipeline' }, 'cairn.dev/v1beta1, Kind=Pipeline'],
    ['an apiVersion that does not parse, and another name', { apiVersion: 'a/b/c', kind: 'Pipeline', metadata: { name: 'other' } }, '/, Kind='],
  ])('refuses an applied configuration with %s before anything else, as kube’s field manager does', async (_, type, printed) => {
    const res = await app().request('PATCH', `${path}/applied?fieldManager=applier`, {
      body: { metadata: { name: 'applied' }, spec, ...type },
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    expect(res.json).toEqual(badRequest(`invalid object type: ${printed}`));
    expect((await app().request('GET', `${path}/applied`)).status).toBe(404);
  });
});
