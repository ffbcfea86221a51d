/**
 * OpenAPI: the committed documents match the code and what the server serves; the
 * v2 document (JSON for kube-aggregator, protobuf for kubectl 1.27/1.28) carries the
 * v3 schemas and operations; and every kubectl 1.27–1.33 explains the kinds and
 * validates through it.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { pipelineSchema, runnerClassSchema } from '../../src/apis/cairn/v1/schemas.js';
import type { JsonSchema } from '../../src/machinery/json-schema.js';
import { patchContentTypes } from '../../src/machinery/patch/patch.js';
import { jsonFilesIn, openApiFiles } from '../../src/server/openapi-files.js';
import { servedGroups } from '../../src/server/server.js';
import { kubectlAvailable, kubectlMinors, runKubectl, versionedKubectl, type RunResult } from '../support/kubectl.js';
import { startLegacyOpenApiProxy, type LegacyOpenApiProxy } from '../support/legacy-openapi-proxy.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const openapiDir = fileURLToPath(new URL('../../openapi/', import.meta.url));
const committed = async (path: string): Promise<unknown> => JSON.parse(await readFile(join(openapiDir, path), 'utf8'));
const protobufAccept = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const pipelineItemPath = '/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}';

/** GETs `path` as the admin and keeps the body as bytes (protobuf is not text). */
function getBytes(server: TestServer, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const req = https.get(
      `${server.url}${path}`,
      { headers, ca: server.pki.servingCaPem, cert: server.pki.adminCertPem, key: server.pki.adminKeyPem, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

// A schema-less protobuf walk by gnostic's field numbers, independent of the server's descriptor.
/** The length-delimited values of `field` in `message`. */
function fieldsOf(message: Uint8Array, field: number): Uint8Array[] {
  const reader = protobuf.Reader.create(message);
  const found: Uint8Array[] = [];
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === field && (tag & 7) === 2) found.push(reader.bytes());
    else reader.skipType(tag & 7);
  }
  return found;
}
/** The values reached by following `path` of field numbers from `message`. */
const at = (message: Uint8Array, path: readonly number[]): Uint8Array[] =>
  path.reduce((messages, field) => messages.flatMap((m) => fieldsOf(m, field)), [message]);
const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');
/** The value (field 2) of the `Named*` entry (name in field 1) called `name`. */
function named(entries: readonly Uint8Array[], name: string): Uint8Array {
  const entry = entries.find((e) => fieldsOf(e, 1).map(text)[0] === name);
  if (!entry) throw new Error(`no entry named ${name}`);
  return fieldsOf(entry, 2)[0];
}
/** A message's vendor extensions (`NamedAny` in `field`), YAML (here JSON) decoded. */
const extensions = (message: Uint8Array, field: number): Record<string, unknown> =>
  Object.fromEntries(fieldsOf(message, field).map((e) => [text(fieldsOf(e, 1)[0]), JSON.parse(text(at(e, [2, 2])[0]))]));

/** Field paths of the properties of `schema` (inline objects and array items included) that have no description. */
function undescribed(schema: JsonSchema, path = ''): string[] {
  const missing: string[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const field = path ? `${path}.${name}` : name;
    if (!property.description?.trim()) missing.push(field);
    missing.push(...undescribed(property, field));
    if (property.items) missing.push(...undescribed(property.items, `${field}[]`));
  }
  return missing;
}

describe('OpenAPI', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ backend: 'pglite' });
  });
  afterAll(async () => {
    await server?.destroy();
  });

  it('has the committed documents of openapi/ up to date', async () => {
    const files = openApiFiles(servedGroups);
    expect(await jsonFilesIn(openapiDir), 'openapi/ has other documents than the code generates: run `npm run openapi`').toEqual([...files.keys()].sort());
    for (const [path, content] of files) {
      expect(await readFile(join(openapiDir, path), 'utf8'), `openapi/${path} is stale: run \`npm run openapi\``).toBe(content);
    }
  });

  it('serves the committed documents', async () => {
    for (const accept of [undefined, 'application/json', '*/*']) {
      const v2 = await server.request('GET', '/openapi/v2', { headers: accept ? { Accept: accept } : {} });
      expect(v2.status, `Accept: ${accept}`).toBe(200);
      expect(v2.headers['content-type']).toBe('application/json');
      expect(v2.json).toEqual(await committed('swagger.json'));
    }
    const root = await server.request('GET', '/openapi/v3');
    expect(root.json).toEqual(await committed('v3/root.json'));
    const document = await server.request('GET', root.json.paths['apis/cairn.dev/v1'].serverRelativeURL);
    expect(document.status).toBe(200);
    expect(document.json).toEqual(await committed('v3/apis__cairn.dev__v1_openapi.json'));
  });

  describe('v3', () => {
    let doc: any;
    beforeAll(async () => {
      doc = (await server.request('GET', '/openapi/v3/apis/cairn.dev/v1')).json;
    });

    it('lists and watches with the query parameters of kube-apiserver', () => {
      for (const path of ['/apis/cairn.dev/v1/namespaces/{namespace}/pipelines', '/apis/cairn.dev/v1/pipelines', '/apis/cairn.dev/v1/runnerclasses']) {
        const list = doc.paths[path].get;
        expect(list['x-kubernetes-action'], path).toBe('list');
        const parameters = Object.fromEntries(list.parameters.map((p: any) => [p.name, p]));
        expect(Object.keys(parameters).sort(), path).toEqual([
          'allowWatchBookmarks',
          'continue',
          'fieldSelector',
          'labelSelector',
          'limit',
          'resourceVersion',
          'resourceVersionMatch',
          'sendInitialEvents',
          'timeoutSeconds',
          'watch',
        ]);
        expect(parameters.limit).toMatchObject({ in: 'query', schema: { type: 'integer' } });
        expect(parameters.sendInitialEvents).toMatchObject({ in: 'query', schema: { type: 'boolean' } });
      }
    });

    it('describes the history subresource: a get with limit, continue and uid, answering the version’s RevisionList', () => {
      for (const [path, kind] of [
        [`${pipelineItemPath}/history`, 'Pipeline'],
        ['/apis/cairn.dev/v1/runnerclasses/{name}/history', 'RunnerClass'],
      ]) {
        const item = doc.paths[path];
        expect(Object.keys(item).sort(), path).toEqual(['get', 'parameters']);
        expect(item.get).toMatchObject({
          'x-kubernetes-action': 'get',
          'x-kubernetes-group-version-kind': { group: 'cairn.dev', version: 'v1', kind: 'RevisionList' },
          operationId: `readCairnDevV1${kind === 'Pipeline' ? 'Namespaced' : ''}${kind}History`,
        });
        expect(item.get.parameters.map((p: any) => [p.name, p.in, p.schema.type])).toEqual([
          ['continue', 'query', 'string'],
          ['limit', 'query', 'integer'],
          ['uid', 'query', 'string'],
        ]);
        expect(item.get.responses[200].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/dev.cairn.v1.RevisionList' });
      }
      const schemas = doc.components.schemas;
      expect(schemas['dev.cairn.v1.RevisionList']['x-kubernetes-group-version-kind']).toEqual([{ group: 'cairn.dev', version: 'v1', kind: 'RevisionList' }]);
      expect(Object.keys(schemas['dev.cairn.v1.Revision'].properties).sort()).toEqual([
        'fieldManager',
        'object',
        'operation',
        'resourceVersion',
        'subresource',
        'time',
        'user',
      ]);
      expect(schemas['io.k8s.apimachinery.pkg.runtime.RawExtension']).toMatchObject({ 'x-kubernetes-embedded-resource': true });
    });

    it('accepts every patch type the server applies', () => {
      expect(Object.keys(doc.paths[pipelineItemPath].patch.requestBody.content)).toEqual(patchContentTypes);
    });

    it('includes the meta.k8s.io representations: Table, PartialObjectMetadata, WatchEvent', () => {
      const schemas = doc.components.schemas;
      const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1';
      expect(schemas[`${meta}.Table`]).toMatchObject({ required: ['columnDefinitions', 'rows'] });
      expect(schemas[`${meta}.Table`].properties.rows.items).toEqual({ allOf: [{ $ref: `#/components/schemas/${meta}.TableRow` }] });
      expect(Object.keys(schemas[`${meta}.TableColumnDefinition`].properties).sort()).toEqual(['description', 'format', 'name', 'priority', 'type']);
      expect(schemas[`${meta}.TableRow`].properties.cells).toMatchObject({ type: 'array' });
      expect(schemas[`${meta}.PartialObjectMetadata`].properties.metadata.allOf).toEqual([{ $ref: `#/components/schemas/${meta}.ObjectMeta` }]);
      expect(schemas[`${meta}.WatchEvent`]).toMatchObject({ required: ['type', 'object'] });
      const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
      for (const ref of refs) expect(schemas[ref], ref).toBeDefined();
    });

    it('keys the lists that patches and apply merge', () => {
      const pipeline = doc.components.schemas['dev.cairn.v1.Pipeline'];
      const steps = pipeline.properties.spec.properties.steps;
      const keyedBy = (key: string) => ({
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': [key],
        'x-kubernetes-patch-merge-key': key,
        'x-kubernetes-patch-strategy': 'merge',
      });
      expect(steps).toMatchObject(keyedBy('name'));
      expect(steps.items.properties.env).toMatchObject(keyedBy('name'));
      expect(pipeline.properties.status.properties.conditions).toMatchObject(keyedBy('type'));
    });

    it('describes every field of Pipeline and RunnerClass, for kubectl explain', () => {
      expect(undescribed(pipelineSchema)).toEqual([]);
      expect(undescribed(runnerClassSchema)).toEqual([]);
    });
  });

  describe('v2', () => {
    let swagger: any;
    beforeAll(async () => {
      swagger = (await server.request('GET', '/openapi/v2')).json;
    });

    it('has an operation for every verb, with inline write parameters', () => {
      expect(swagger.swagger).toBe('2.0');
      const item = swagger.paths[pipelineItemPath];
      expect(Object.keys(item).sort()).toEqual(['delete', 'get', 'parameters', 'patch', 'put']);
      const gvk = { group: 'cairn.dev', version: 'v1', kind: 'Pipeline' };
      for (const [method, action] of [
        ['get', 'get'],
        ['put', 'put'],
        ['patch', 'patch'],
        ['delete', 'delete'],
      ] as const) {
        expect(item[method]['x-kubernetes-action']).toBe(action);
        expect(item[method]['x-kubernetes-group-version-kind']).toEqual(gvk);
        expect(item[method].produces).toEqual(['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']);
      }
      expect(item.patch.consumes).toEqual(patchContentTypes);
      expect(item.get.consumes).toEqual(['*/*']);
      const collection = swagger.paths['/apis/cairn.dev/v1/namespaces/{namespace}/pipelines'];
      expect(collection.post['x-kubernetes-action']).toBe('post');
      expect(collection.get['x-kubernetes-action']).toBe('list');
      // As kube-apiserver lists them for its built-in kinds.
      expect(collection.get.produces).toEqual([
        'application/json',
        'application/yaml',
        'application/vnd.kubernetes.protobuf',
        'application/json;stream=watch',
        'application/vnd.kubernetes.protobuf;stream=watch',
      ]);
      expect(collection.post.consumes).toEqual(['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']);
      expect(swagger.paths['/apis/cairn.dev/v1/runnerclasses/{name}'].patch['x-kubernetes-group-version-kind']).toEqual({ ...gvk, kind: 'RunnerClass' });
      for (const op of [item.patch, item.put, collection.post]) {
        const [body, ...query] = op.parameters;
        expect(body).toMatchObject({ name: 'body', in: 'body', required: true, schema: { $ref: expect.stringMatching(/^#\/definitions\//) } });
        expect(query.map((p: any) => [p.name, p.in, p.type])).toEqual([
          ['dryRun', 'query', 'string'],
          ['fieldManager', 'query', 'string'],
          ['fieldValidation', 'query', 'string'],
        ]);
      }
      expect(item.parameters.map((p: any) => [p.name, p.in])).toEqual([
        ['name', 'path'],
        ['namespace', 'path'],
        ['pretty', 'query'],
      ]);
      expect(collection.get.parameters.map((p: any) => p.name)).toContain('allowWatchBookmarks');
      // A get reads at a resourceVersion, exactly when asked.
      expect(item.get.parameters.map((p: any) => [p.name, p.in, p.type])).toEqual([
        ['resourceVersion', 'query', 'string'],
        ['resourceVersionMatch', 'query', 'string'],
      ]);
    });

    it('has the history operation, its query parameters typed inline', () => {
      const history = swagger.paths['/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}/history'];
      expect(history.get.responses[200].schema).toEqual({ $ref: '#/definitions/dev.cairn.v1.RevisionList' });
      expect(history.get.parameters.map((p: any) => [p.name, p.in, p.type])).toEqual([
        ['continue', 'query', 'string'],
        ['limit', 'query', 'integer'],
        ['uid', 'query', 'string'],
      ]);
      expect(history.get.produces).toEqual(['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']);
    });

    it('has the v3 schemas as definitions', () => {
      const text = JSON.stringify(swagger);
      expect(text).not.toContain('#/components/');
      expect(text).not.toContain('allOf');
      for (const [, ref] of text.matchAll(/"\$ref":"#\/definitions\/([^"]+)"/g)) expect(swagger.definitions[ref], ref).toBeDefined();
      const pipeline = swagger.definitions['dev.cairn.v1.Pipeline'];
      expect(pipeline['x-kubernetes-group-version-kind']).toEqual([{ group: 'cairn.dev', version: 'v1', kind: 'Pipeline' }]);
      // kube's v2 form: a reference beside its description.
      expect(pipeline.properties.metadata).toEqual({ $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', description: expect.any(String) });
      expect(pipeline.properties.spec.properties.steps).toMatchObject({
        'x-kubernetes-list-map-keys': ['name'],
        'x-kubernetes-patch-merge-key': 'name',
        'x-kubernetes-patch-strategy': 'merge',
      });
      expect(pipeline.properties.status.properties.conditions).toMatchObject({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-patch-merge-key': 'type' });
      expect(swagger.definitions['dev.cairn.v1.PipelineList']['x-kubernetes-group-version-kind']).toEqual([
        { group: 'cairn.dev', version: 'v1', kind: 'PipelineList' },
      ]);
      expect(swagger.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.Table']).toBeDefined();
    });

    it('serves gnostic protobuf to kubectl', async () => {
      const res = await getBytes(server, '/openapi/v2', { Accept: protobufAccept });
      expect(res.status).toBe(200);
      // kube-openapi answers the deprecated `@v1.0` media type with the current one.
      expect(res.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
      const pb = new Uint8Array(res.body);
      // Document.swagger (field 1, length-delimited) = "2.0" comes first.
      expect([...pb.subarray(0, 5)]).toEqual([0x0a, 0x03, 0x32, 0x2e, 0x30]);
      expect(at(pb, [2, 1]).map(text)).toEqual(['Cairn']);
      // Document.definitions.additional_properties[].name, Document.paths.path[].name
      expect(at(pb, [9, 1, 1]).map(text)).toEqual(Object.keys(swagger.definitions));
      expect(at(pb, [8, 2, 1]).map(text)).toEqual(Object.keys(swagger.paths));

      // What kubectl 1.27's query-param verifier reads: PathItem.patch → parameters → Parameter.non_body_parameter → query_parameter_sub_schema → name.
      const patch = at(named(at(pb, [8, 2]), pipelineItemPath), [8])[0];
      expect(at(patch, [8, 1, 2, 3, 4]).map(text)).toEqual(['dryRun', 'fieldManager', 'fieldValidation']);
      expect(at(patch, [8, 1, 1, 2]).map(text)).toEqual(['body']);
      expect(extensions(patch, 13)).toEqual({
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': { group: 'cairn.dev', version: 'v1', kind: 'Pipeline' },
      });

      // Schema: properties (25) → NamedSchema (1), type (22), vendor extensions (31).
      const pipeline = named(at(pb, [9, 1]), 'dev.cairn.v1.Pipeline');
      expect(extensions(pipeline, 31)).toEqual({ 'x-kubernetes-group-version-kind': [{ group: 'cairn.dev', version: 'v1', kind: 'Pipeline' }] });
      const spec = named(at(pipeline, [25, 1]), 'spec');
      const steps = named(at(spec, [25, 1]), 'steps');
      expect(at(steps, [22, 1]).map(text)).toEqual(['array']);
      expect(extensions(steps, 31)).toMatchObject({ 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-list-map-keys': ['name'] });
      const metadata = named(at(pipeline, [25, 1]), 'metadata');
      expect(at(metadata, [1]).map(text)).toEqual(['#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
    });

    it('answers with 304 when the ETag matches, for JSON and protobuf, and 406 for other media types', async () => {
      for (const accept of ['application/json', protobufAccept]) {
        const first = await getBytes(server, '/openapi/v2', { Accept: accept });
        const etag = first.headers.etag as string;
        expect(etag, accept).toMatch(/^"[0-9A-F]{128}"$/);
        expect(first.headers.vary).toContain('Accept');
        const again = await getBytes(server, '/openapi/v2', { Accept: accept, 'If-None-Match': etag });
        expect(again.status, accept).toBe(304);
        expect(again.body.length).toBe(0);
        const changed = await getBytes(server, '/openapi/v2', { Accept: accept, 'If-None-Match': '"0123"' });
        expect(changed.status, accept).toBe(200);
        expect(changed.body.equals(first.body)).toBe(true);
      }
      const v3 = await getBytes(server, '/openapi/v3/apis/cairn.dev/v1');
      expect((await getBytes(server, '/openapi/v3/apis/cairn.dev/v1', { 'If-None-Match': v3.headers.etag as string })).status).toBe(304);
      const xml = await server.request('GET', '/openapi/v2', { headers: { Accept: 'application/xml' } });
      expect(xml.status).toBe(406);
      expect(xml.json).toMatchObject({ kind: 'Status', code: 406, reason: 'NotAcceptable' });
    });
  });

  describe.runIf(kubectlAvailable)('kubectl (needs kubectl on PATH)', () => {
    const homes: string[] = [];
    /** A fresh HOME, so no discovery or OpenAPI cache carries over between kubectl versions. */
    const freshHome = async (): Promise<string> => {
      const home = await mkdtemp(join(tmpdir(), 'cairn-openapi-kubectl-'));
      homes.push(home);
      return home;
    };
    afterAll(async () => {
      for (const home of homes) await rm(home, { recursive: true, force: true });
    });

    const squash = (s: string): string => s.replace(/\s+/g, ' ');
    const describedIn = (output: string, schema: JsonSchema): void => {
      for (const [name, field] of Object.entries(schema.properties ?? {})) {
        expect(output, name).toMatch(new RegExp(`^\\s+${name}\\s+<`, 'm'));
        expect(squash(output), name).toContain(squash(field.description!));
      }
    };
    const steps = pipelineSchema.properties!.spec.properties!.steps;
    const manifest = (name: string, spec: Record<string, unknown> = {}) => ({
      apiVersion: 'cairn.dev/v1',
      kind: 'Pipeline',
      metadata: { name, namespace: 'default' },
      spec: {
        runnerClassName: 'standard',
        steps: [{ name: 'fetch', image: 'alpine:3.20', command: ['true'], env: [{ name: 'MODE', value: 'fast' }] }],
        ...spec,
      },
    });
    const withUnknownFields = (name: string) => manifest(name, { bogus: true, steps: [{ name: 'fetch', colour: 'red' }] });

    for (const minor of kubectlMinors) {
      it(`kubectl 1.${minor} explains the kinds from OpenAPI v3 and from OpenAPI v2 protobuf`, async () => {
        const env = { ...process.env, KUBECONFIG: server.kubeconfigPath, HOME: await freshHome() };
        const explain = async (...args: string[]): Promise<string> => {
          const result = await runKubectl(versionedKubectl(minor), ['explain', ...args], env);
          expect(result.code, `kubectl explain ${args.join(' ')}\n${result.stderr}`).toBe(0);
          return result.stdout;
        };
        // The default renderer reads v3 (GROUP: header); plaintext-openapiv2 only has the v2 protobuf (VERSION: group/version).
        for (const [output, header] of [
          [[], /^GROUP:\s+cairn\.dev$/m],
          [['--output=plaintext-openapiv2'], /^VERSION:\s+cairn\.dev\/v1$/m],
        ] as const) {
          const pipelines = await explain('pipelines', ...output);
          expect(pipelines).toMatch(header);
          expect(squash(pipelines)).toContain(squash(pipelineSchema.description!));
          describedIn(pipelines, pipelineSchema);

          const stepsOut = await explain('pipelines.spec.steps', ...output);
          expect(squash(stepsOut)).toContain(squash(steps.description!));
          describedIn(stepsOut, steps.items!);
          expect(stepsOut).toMatch(/^\s+command\s+<\[\]string>/m);
          expect(stepsOut).toMatch(/^\s+env\s+<\[\]Object>/m);

          describedIn(await explain('runnerclasses.spec', ...output), runnerClassSchema.properties!.spec);
        }
      });
    }

    const expectCreated = (result: RunResult, name: string): void => {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim()).toBe(`pipeline.cairn.dev/${name} created`);
    };
    const expectStrictlyRejected = (result: RunResult): void => {
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('BadRequest');
      expect(result.stderr).toContain('strict decoding error');
      expect(result.stderr).toContain('unknown field "spec.bogus"');
      expect(result.stderr).toContain('unknown field "spec.steps[0].colour"');
    };

    for (const minor of [27, 28] as const) {
      it(`kubectl 1.${minor} creates with default validation and has the server reject unknown fields`, async () => {
        const home = await freshHome();
        const env = { ...process.env, KUBECONFIG: server.kubeconfigPath, HOME: home };
        const good = join(home, 'pipeline.yaml');
        const bad = join(home, 'unknown-fields.yaml');
        await writeFile(good, stringify(manifest(`validated-${minor}`)));
        await writeFile(bad, stringify(withUnknownFields(`unknown-${minor}`)));
        expectCreated(await runKubectl(versionedKubectl(minor), ['create', '-f', good], env), `validated-${minor}`);
        expectStrictlyRejected(await runKubectl(versionedKubectl(minor), ['create', '-f', bad], env));
      });
    }

    describe('without OpenAPI v3, as kubectl 1.27 and 1.28 see a legacy server', () => {
      let proxy: LegacyOpenApiProxy;
      let kubeconfig = '';
      beforeAll(async () => {
        proxy = await startLegacyOpenApiProxy(server);
        kubeconfig = join(await freshHome(), 'kubeconfig');
        await proxy.writeKubeconfig(kubeconfig);
      });
      afterAll(async () => {
        await proxy?.close();
      });

      for (const minor of [27, 28] as const) {
        it(`kubectl 1.${minor} finds fieldValidation in the v2 PATCH operation and explains from v2`, async () => {
          const home = await freshHome();
          const env = { ...process.env, KUBECONFIG: kubeconfig, HOME: home };
          const good = join(home, 'pipeline.yaml');
          const bad = join(home, 'unknown-fields.yaml');
          await writeFile(good, stringify(manifest(`legacy-${minor}`)));
          await writeFile(bad, stringify(withUnknownFields(`legacy-unknown-${minor}`)));
          proxy.requests.length = 0;

          expectCreated(await runKubectl(versionedKubectl(minor), ['create', '-f', good], env), `legacy-${minor}`);
          const requests = proxy.requests.map((r) => ({ ...r, url: new URL(r.url, 'http://front') }));
          expect(requests.filter((r) => r.url.pathname === '/openapi/v2').map((r) => r.accept)).toEqual([protobufAccept]);
          const posts = requests.filter((r) => r.method === 'POST');
          expect(posts.map((r) => r.url.pathname)).toEqual(['/apis/cairn.dev/v1/namespaces/default/pipelines']);
          // Strict means kubectl saw the parameter and left validation to the server.
          expect(posts[0].url.searchParams.get('fieldValidation')).toBe('Strict');
          expectStrictlyRejected(await runKubectl(versionedKubectl(minor), ['create', '-f', bad], env));

          const explained = await runKubectl(versionedKubectl(minor), ['explain', 'pipelines.spec.steps'], env);
          expect(explained.code, explained.stderr).toBe(0);
          expect(explained.stdout).toMatch(/^VERSION:\s+cairn\.dev\/v1$/m);
          describedIn(explained.stdout, steps.items!);
        });
      }
    });
  });
});
