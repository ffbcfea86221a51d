/**
 * A whole list (no limit) is read from one snapshot in chunks and written as it is
 * read, in every format and representation: the client gets the same document an
 * unpaged list would, the snapshot holds across chunks while writes go on, what refuses
 * the list is still a Status, and an audit event of its response says it left it out.
 */
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { protobufScheme } from '../../src/apis/protobuf.js';
import type { AuditEvent } from '../../src/audit/audit.js';
import { auditPolicyRuleEvaluator } from '../../src/audit/policy.js';
import { inProcessApp } from '../support/in-process-app.js';
import { requestBytes } from '../support/protobuf-client.js';

const ns = 'streamed';
const pipelines = `/apis/cairn.dev/v1/namespaces/${ns}/pipelines`;
const count = 1_203;

describe('a whole list, streamed', () => {
  const audited: AuditEvent[] = [];
  const app = inProcessApp([cairnGroup], {
    audit: { processEvents: (...events) => audited.push(...events) },
    auditPolicy: auditPolicyRuleEvaluator({
      rules: [{ level: 'RequestResponse', verbs: ['list'], namespaces: [''] }, { level: 'None' }],
      omitStages: ['RequestReceived'],
    }),
  });
  const names = Array.from({ length: count }, (_, i) => `p${String(i).padStart(4, '0')}`);

  it('answers the same document as the paged reads put together', async () => {
    for (let i = 0; i < count; i += 100) {
      await Promise.all(
        names.slice(i, i + 100).map(async (name) => {
          const res = await app().request('POST', pipelines, { body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name }, spec: {} } });
          expect(res.status, res.text).toBe(201);
        }),
      );
    }
    const whole = await app().request('GET', pipelines);
    expect(whole.status).toBe(200);
    expect(whole.headers['content-type']).toBe('application/json');
    expect(Object.keys(whole.json)).toEqual(['apiVersion', 'kind', 'metadata', 'items']);
    expect(whole.json).toMatchObject({ apiVersion: 'cairn.dev/v1', kind: 'PipelineList', metadata: { resourceVersion: expect.any(String) } });
    expect(whole.json.items.map((item: any) => item.metadata.name)).toEqual(names);

    // The same objects as pages read at that resourceVersion.
    const paged: unknown[] = [];
    let next = `${pipelines}?limit=400&resourceVersion=${whole.json.metadata.resourceVersion}&resourceVersionMatch=Exact`;
    for (;;) {
      const page = (await app().request('GET', next)).json;
      paged.push(...page.items);
      if (!page.metadata.continue) break;
      next = `${pipelines}?limit=400&continue=${encodeURIComponent(page.metadata.continue)}`;
    }
    expect(whole.json.items).toEqual(paged);
    // A selector goes through the same way.
    const selected = await app().request('GET', `${pipelines}?fieldSelector=metadata.name%3Dp0700`);
    expect(selected.json.items.map((item: any) => item.metadata.name)).toEqual(['p0700']);
  });

  it('in every other format and representation, the same objects', async () => {
    const whole = (await app().request('GET', pipelines)).json;
    const names = whole.items.map((item: any) => item.metadata.name);
    const rv = whole.metadata.resourceVersion;
    const at = `${pipelines}?resourceVersion=${rv}&resourceVersionMatch=Exact`;

    const yaml = await app().request('GET', at, { headers: { Accept: 'application/yaml' } });
    expect(yaml.headers['content-type']).toBe('application/yaml');
    // Written as read: chunked, never measured whole.
    expect(yaml.headers['content-length']).toBeUndefined();
    expect(YAML.parse(yaml.text)).toEqual(whole);

    const protobuf = await requestBytes(app(), 'GET', at, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
    expect(protobuf.headers['content-type']).toBe('application/vnd.kubernetes.protobuf');
    expect(protobuf.headers['content-length']).toBeUndefined();
    expect(protobufScheme([cairnGroup]).decode(protobuf.body)).toEqual(whole);

    const metadata = await app().request('GET', at, { headers: { Accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' } });
    expect(metadata.json).toMatchObject({ kind: 'PartialObjectMetadataList', metadata: { resourceVersion: rv } });
    expect(metadata.json.items).toEqual(
      whole.items.map((item: any) => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: item.metadata })),
    );

    const table = await app().request('GET', at, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(table.headers['content-length']).toBeUndefined();
    expect(table.json).toMatchObject({ kind: 'Table', metadata: { resourceVersion: rv }, columnDefinitions: expect.any(Array) });
    expect(table.json.rows.map((row: any) => row.cells[0])).toEqual(names);
    expect(table.json.rows.map((row: any) => row.object.metadata)).toEqual(whole.items.map((item: any) => item.metadata));

    const converted = (await app().request('GET', at.replace('/v1/', '/v1alpha1/'))).json;
    expect(converted).toMatchObject({ apiVersion: 'cairn.dev/v1alpha1', kind: 'PipelineList' });
    expect(converted.items.map((item: any) => [item.apiVersion, item.metadata.name])).toEqual(names.map((name: string) => ['cairn.dev/v1alpha1', name]));
  });

  it("audits a list longer than a chunk without its response object, as kube's truncation does; a shorter one whole", async () => {
    audited.length = 0;
    // Only lists of every namespace are audited, with their responses.
    const long = await app().request('GET', '/apis/cairn.dev/v1/pipelines');
    expect(long.json.items).toHaveLength(count);
    const short = await app().request('GET', '/apis/cairn.dev/v1/pipelines?labelSelector=none');
    expect(short.json.items).toEqual([]);
    const [longEvent, shortEvent] = audited.filter((e) => e.stage === 'ResponseComplete');
    expect(longEvent).toMatchObject({ level: 'RequestResponse', annotations: { 'audit.k8s.io/truncated': 'true' }, responseStatus: { code: 200 } });
    expect(longEvent.responseObject).toBeUndefined();
    const shortList = await app().request('GET', '/apis/cairn.dev/v1/pipelines?labelSelector=none');
    expect(shortList.headers['content-length']).toBe(String(Buffer.byteLength(shortList.text)));
    expect(shortEvent.responseObject).toMatchObject({ kind: 'PipelineList', items: [] });
    expect(shortEvent.annotations?.['audit.k8s.io/truncated']).toBeUndefined();
  });

  it('reads every chunk from the snapshot of the first', async () => {
    const store = app().registry.storages('cairn.dev', 'pipelines')!.store;
    const chunks = store.listInChunks(ns, { resourceVersion: '' }, 500);
    const first = await chunks.next();
    expect(first.done).toBe(false);
    // Between chunks: one object goes, one comes.
    expect((await app().request('DELETE', `${pipelines}/p1100`)).status).toBe(200);
    expect(
      (await app().request('POST', pipelines, { body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'p9999' }, spec: {} } })).status,
    ).toBe(201);
    const read = [...first.value!.items];
    for await (const chunk of chunks) {
      expect(chunk.resourceVersion).toBe(first.value!.resourceVersion);
      read.push(...chunk.items);
    }
    expect(read.map((item) => item.metadata.name)).toEqual(names);
  });

  it('answers a list it cannot serve with a Status', async () => {
    const res = await app().request('GET', `${pipelines}?resourceVersion=99999999999&resourceVersionMatch=NotOlderThan`);
    expect(res.status).toBe(504);
    expect(res.json).toMatchObject({ kind: 'Status', reason: 'Timeout' });
  });

  it('deletes a collection a chunk at a time, answering with what it deleted, as listed before', async () => {
    const before = (await app().request('GET', pipelines)).json.items;
    expect(before.length).toBeGreaterThan(1_000);
    const deleted = await app().request('DELETE', pipelines, { headers: { Accept: 'application/yaml' } });
    expect(deleted.status).toBe(200);
    expect(deleted.headers['content-length']).toBeUndefined();
    expect(YAML.parse(deleted.text)).toEqual({
      apiVersion: 'cairn.dev/v1',
      kind: 'PipelineList',
      metadata: { resourceVersion: expect.any(String) },
      items: before,
    });
    expect((await app().request('GET', pipelines)).json.items).toEqual([]);
  });
});
