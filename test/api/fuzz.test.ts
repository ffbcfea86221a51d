/**
 * A seeded fuzz run against a real server: requests that each carry at least one
 * defect (or only read, or only dry-run) across methods, paths, query parameters,
 * content types, bodies and patch documents. None may get a 5xx (but kube's 504 for
 * a resourceVersion ahead of the store), lose its connection, or answer a 4xx without
 * a Status of that code; and the database must be exactly as before.
 */
import https from 'node:https';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { maxNestingDepth } from '../../src/machinery/decoding/bounded-decoding.js';
import { pipeline, requestServer, sharedTestServer, type TestResponse } from '../support/test-server.js';

const runs = 10_000;
const seed = 20261124;
const group = '/apis/cairn.dev/v1';
const namespaced = `${group}/namespaces/fz/pipelines`;
const names = ['p0', 'p1', 'missing', 'a%E0%A4%A', 'a%00b', '..', 'x%2Fy', 'UPPER'];

/** One request, as the generator builds it. */
interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly query: readonly (readonly [string, string])[];
  readonly contentType?: string;
  readonly accept?: string;
  readonly body?: string;
  readonly anonymous: boolean;
}

const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.constantFrom('', '\u0000', 'a\u0000b', '\ud800', '%', '-1', '1.5', 'true', 'null'));
const int64Text = fc.oneof(
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.constantFrom('99999999999999999999', '9223372036854775807', '1e3', '0x10', ' 1'),
);
const json = fc.jsonValue({ maxDepth: 3 });
const deepJson = fc.integer({ min: maxNestingDepth + 1, max: 20_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth));
const deepObject = fc.integer({ min: maxNestingDepth + 1, max: 20_000 }).map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

/** Query parameters of every kind the API reads, with values of every shape. */
const readParams = fc.array(
  fc.oneof(
    fc.tuple(fc.constantFrom('limit', 'timeoutSeconds', 'tailLines', 'sinceSeconds', 'limitBytes', 'gracePeriodSeconds'), int64Text),
    fc.tuple(fc.constantFrom('resourceVersion'), fc.oneof(int64Text, text)),
    fc.tuple(
      fc.constantFrom(
        'resourceVersionMatch',
        'continue',
        'labelSelector',
        'fieldSelector',
        'sinceTime',
        'step',
        'allowWatchBookmarks',
        'sendInitialEvents',
        'timestamps',
      ),
      text,
    ),
    fc.tuple(fc.constantFrom('fieldSelector'), fc.constantFrom('spec.runnerClassName=a%00', 'status.phase!=', 'metadata.name=p0', 'nope=1')),
    fc.tuple(fc.constantFrom('labelSelector'), fc.constantFrom('a in (b', 'x=y,z!=w', '!a', 'a>99999999999999999999')),
    fc.tuple(fc.constantFrom('watch', 'follow'), fc.constantFrom('true', '1', 'false', 'maybe', '')),
  ),
  { maxLength: 4 },
);

/** Bodies of every shape, most of them broken. */
const anyBody = fc.oneof(
  json.map((v) => JSON.stringify(v)),
  fc.string({ unit: 'binary', maxLength: 40 }),
  deepJson,
  deepObject,
  fc.constantFrom('', '{', '{"a":1,"a":2}', 'a: [b', '&a [*a]', '---\na: 1\n---\nb: 2'),
  fc.record({ spec: json, metadata: json, kind: fc.constantFrom('Pipeline', 'Scale', 7) }).map((v) => JSON.stringify({ apiVersion: 'cairn.dev/v1', ...v })),
);
const contentTypes = fc.constantFrom(
  'application/json',
  'application/yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  'text/plain',
  'application/xml',
  '',
);

/** A Pipeline with random strings where strings go (U+0000 and lone surrogates included), sent as a dry run. */
const dryRunWrite = fc
  .record({ name: fc.constantFrom('p0', 'p1', 'dry'), note: text, command: text, replicas: fc.oneof(fc.constant(null), fc.integer({ min: -2, max: 5 })) })
  .map(({ name, note, command, replicas }): FuzzRequest => {
    const body = pipeline(name, { replicas, steps: [{ name: 's', image: 'i', command: ['sh', '-c', command] }] });
    (body.metadata as Record<string, unknown>).annotations = { note };
    return { method: 'POST', path: namespaced, query: [['dryRun', 'All']], contentType: 'application/json', body: JSON.stringify(body), anonymous: false };
  });

/** A defect that makes a write fail whatever else it carries. */
const writeDefect: fc.Arbitrary<Partial<FuzzRequest>> = fc.oneof(
  fc.constantFrom<Partial<FuzzRequest>>(
    { query: [['dryRun', 'Some']] },
    { query: [['fieldValidation', 'Loose']] },
    { query: [['fieldManager', 'm'.repeat(129)]] },
    { contentType: 'application/xml' },
    { anonymous: true },
  ),
  deepJson.map((body) => ({ body })),
  deepObject.map((body) => ({ body })),
);

/** Writes (create, update, patch, delete, deletecollection, log append), each with a defect. */
const brokenWrite = fc
  .record({
    method: fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE'),
    target: fc.constantFrom('collection', 'object', 'status', 'scale', 'log', 'runnerclass'),
    name: fc.constantFrom(...names),
    query: readParams,
    contentType: contentTypes,
    body: anyBody,
    defect: writeDefect,
  })
  .map(({ method, target, name, query, contentType, body, defect }): FuzzRequest => {
    const object = target === 'runnerclass' ? `${group}/runnerclasses/${name}` : `${namespaced}/${name}`;
    const path = target === 'collection' ? namespaced : target === 'object' || target === 'runnerclass' ? object : `${object}/${target}`;
    // A DELETE's defect must be one its options decoding sees: in its body, since a body hides the query (as in kube).
    const deleteDefect: Partial<FuzzRequest> = { body: '{"dryRun":["Some"]}' };
    const d = method === 'DELETE' && !defect.anonymous ? deleteDefect : defect;
    // A log append's defect must be one its decoding sees.
    const logDefect: Partial<FuzzRequest> = { contentType: 'application/xml' };
    const chosen = target === 'log' && method === 'POST' && !d.anonymous ? logDefect : d;
    return {
      method,
      path,
      query: [...query, ...(chosen.query ?? [])],
      contentType: chosen.contentType ?? contentType,
      body: chosen.body ?? body,
      anonymous: chosen.anonymous ?? false,
    };
  });

/** Patches whose document cannot apply: a failing `test` first, a spec of the wrong type, unknown directives. */
const brokenPatch = fc
  .record({
    name: fc.constantFrom('p0', 'p1'),
    kind: fc.constantFrom('json', 'merge', 'strategic', 'apply-no-manager', 'force'),
    ops: fc.array(
      fc.record({
        op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'),
        path: fc.constantFrom('/spec', '/spec/x', '/metadata/labels/a', '', '/spec/steps/0', '/spec/steps/-'),
        from: fc.constantFrom('/spec', '/metadata', '/x'),
        value: json,
      }),
      { maxLength: 20 },
    ),
    value: json,
  })
  .map(({ name, kind, ops, value }): FuzzRequest => {
    const path = `${namespaced}/${name}`;
    switch (kind) {
      case 'json':
        return {
          method: 'PATCH',
          path,
          query: [],
          contentType: 'application/json-patch+json',
          body: JSON.stringify([{ op: 'test', path: '/kind', value: 'NotAPipeline' }, ...ops]),
          anonymous: false,
        };
      case 'merge':
        return {
          method: 'PATCH',
          path,
          query: [],
          contentType: 'application/merge-patch+json',
          body: JSON.stringify({ spec: { replicas: 'many', x: value } }),
          anonymous: false,
        };
      case 'strategic':
        return {
          method: 'PATCH',
          path,
          query: [],
          contentType: 'application/strategic-merge-patch+json',
          body: JSON.stringify({ spec: { steps: [{ $patch: 'bogus', name: 's' }], x: value } }),
          anonymous: false,
        };
      case 'apply-no-manager':
        return { method: 'PATCH', path, query: [], contentType: 'application/apply-patch+yaml', body: JSON.stringify(value), anonymous: false };
      default:
        return {
          method: 'PATCH',
          path,
          query: [['force', 'true']],
          contentType: 'application/merge-patch+json',
          body: JSON.stringify({ metadata: { labels: { a: 'b' } } }),
          anonymous: false,
        };
    }
  });

/** Reads of any path, which may succeed: they change nothing. Watches end at once. */
const read = fc
  .record({
    method: fc.constantFrom('GET', 'GET', 'OPTIONS', 'TRACE'),
    path: fc.oneof(
      fc.constantFrom(
        namespaced,
        `${group}/pipelines`,
        `${group}/runnerclasses`,
        `${namespaced}/p0`,
        `${namespaced}/p0/log`,
        `${namespaced}/p0/scale`,
        `${group}/watch/pipelines`,
        '/apis/cairn.dev/v9/x',
        '/openapi/v3/apis/cairn.dev/v1',
        '/apis/%E0%A4%A/v1/x',
      ),
      fc.constantFrom(...names).map((name) => `${namespaced}/${name}`),
    ),
    query: readParams,
    accept: fc.constantFrom('application/json', 'application/yaml', 'application/json;as=Table;g=meta.k8s.io;v=v1', 'text/html', '*/*', ''),
    anonymous: fc.boolean(),
  })
  .map(({ method, path, query, accept, anonymous }): FuzzRequest => {
    // A watch or follow that succeeds must end by itself.
    const bounded = query.filter(([k, v]) => k !== 'timeoutSeconds' && !(k === 'follow' && (v === 'true' || v === '1')));
    const watching = path.includes('/watch/') || query.some(([k]) => k === 'watch');
    return { method, path, query: watching ? [...bounded, ['timeoutSeconds', '0']] : bounded, accept, anonymous };
  });

const fuzzRequest = fc.oneof(brokenWrite, brokenWrite, brokenPatch, read, dryRunWrite);

describe('fuzz', () => {
  const server = sharedTestServer({ backend: 'pglite' });
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  afterAll(() => agent.destroy());

  const send = (r: FuzzRequest): Promise<TestResponse> => {
    const query = new URLSearchParams(r.query as [string, string][]).toString();
    const headers: Record<string, string> = {};
    if (r.contentType) headers['Content-Type'] = r.contentType;
    if (r.accept) headers.Accept = r.accept;
    if (r.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(r.body));
    return requestServer(server(), r.method, `${r.path}${query ? `?${query}` : ''}`, {
      headers,
      body: r.body,
      agent,
      ...(r.anonymous ? { clientCert: null } : {}),
    });
  };

  /** Everything a request could change: every object (with its resourceVersion) and every log. */
  const state = async (): Promise<unknown> => {
    const pipelines = await send({ method: 'GET', path: namespaced, query: [], anonymous: false });
    const classes = await send({ method: 'GET', path: `${group}/runnerclasses`, query: [], anonymous: false });
    const logs = await Promise.all(['p0', 'p1'].map((name) => send({ method: 'GET', path: `${namespaced}/${name}/log`, query: [], anonymous: false })));
    return { pipelines: pipelines.json, classes: classes.json, logs: logs.map((l) => l.text) };
  };

  it(`answers ${runs} malformed requests with Status 4xx and changes nothing`, async () => {
    for (const name of ['p0', 'p1']) expect((await server().request('POST', namespaced, { body: pipeline(name) })).status).toBe(201);
    expect(
      (
        await server().request('POST', `${group}/runnerclasses`, {
          body: { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name: 'custom' }, spec: {} },
        })
      ).status,
    ).toBe(201);
    expect((await server().request('POST', `${namespaced}/p0/log`, { body: { step: 'fetch', lines: ['one'] } })).status).toBe(201);
    const before = await state();

    await fc.assert(
      fc.asyncProperty(fuzzRequest, async (r) => {
        const res = await send(r);
        const what = `${r.method} ${r.path} ${JSON.stringify(r.query)} ${r.contentType ?? ''} → ${res.status} ${res.text.slice(0, 300)}`;
        const aheadOfStore = res.status === 504 && res.json?.reason === 'Timeout';
        expect(res.status < 500 || aheadOfStore, what).toBe(true);
        if (res.status >= 400 && r.method !== 'HEAD') {
          // A Status is written in what the client accepts: YAML when it asked for YAML.
          const status: unknown = String(res.headers['content-type']).startsWith('application/yaml') ? parseYaml(res.text) : res.json;
          expect(status, what).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: res.status });
        }
        const isWrite = r.method !== 'GET' && !r.query.some(([k, v]) => k === 'dryRun' && v === 'All');
        if (isWrite) expect(res.status >= 400, what).toBe(true);
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );

    expect(await state()).toEqual(before);
  }, 120_000);
});
