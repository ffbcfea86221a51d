/**
 * A whole JSON list (no limit) is read from one snapshot in chunks and written as it is
 * read: the client gets the same document an unpaged list would, the snapshot holds
 * across chunks while writes go on, and what refuses the list is still a Status.
 */
import { describe, expect, it } from 'vitest';
import { cairnGroup } from '../src/apis/cairn/register.js';
import { inProcessApp } from './support/in-process-app.js';

const ns = 'streamed';
const pipelines = `/apis/cairn.dev/v1/namespaces/${ns}/pipelines`;
const count = 1_203;

describe('a whole list, streamed', () => {
  const app = inProcessApp([cairnGroup]);
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
    expect(whole.headers.get('content-type')).toBe('application/json');
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
});
