/**
 * A resource served in two versions through the v1 hub, in process: the throwaway
 * `widgets.test` group (test/support/widgets) whose v2 is one folder and one
 * registration line. Every verb speaks the request's version; storage holds v1.
 */
import { describe, expect, it } from 'vitest';
import { inProcessApp } from '../support/in-process-app.js';
import { widgetsGroup } from '../support/widgets/register.js';

const v1 = '/apis/widgets.test/v1/namespaces/ns/widgets';
const v2 = '/apis/widgets.test/v2/namespaces/ns/widgets';
const widget = (version: string, name: string, spec: Record<string, unknown>) => ({
  apiVersion: `widgets.test/${version}`,
  kind: 'Widget',
  metadata: { name },
  spec,
});

describe('a second version is one folder and one registration line', () => {
  const app = inProcessApp([widgetsGroup]);

  it('creates in v2 and reads the same object in both versions', async () => {
    const created = await app().request('POST', v2, { body: widget('v2', 'a', { replicas: 3, color: 'red' }) });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ apiVersion: 'widgets.test/v2', spec: { replicas: 3, color: 'red' } });
    expect(created.json.spec).not.toHaveProperty('size');
    const inV1 = await app().request('GET', `${v1}/a`);
    expect(inV1.json).toMatchObject({ apiVersion: 'widgets.test/v1', spec: { size: 3, color: 'red' } });
    const inV2 = await app().request('GET', `${v2}/a`);
    expect(inV2.json).toMatchObject({ apiVersion: 'widgets.test/v2', spec: { replicas: 3, color: 'red' } });
    // Storage holds the hub.
    const stored = await app().registry.storages('widgets.test', 'widgets')!.store.get({ namespace: 'ns', name: 'a' });
    expect(stored).toMatchObject({ apiVersion: 'widgets.test/v1', spec: { size: 3 } });
  });

  it('defaults in the version the object was sent in', async () => {
    const created = await app().request('POST', v2, { body: widget('v2', 'defaulted', { color: 'blue' }) });
    expect(created.json.spec.replicas).toBe(1);
    expect((await app().request('GET', `${v1}/defaulted`)).json.spec.size).toBe(1);
    // v1 has no defaults: nothing is added there.
    const plain = await app().request('POST', v1, { body: widget('v1', 'plain', { color: 'blue' }) });
    expect(plain.json.spec).toEqual({ color: 'blue' });
  });

  it('applies every patch type to the object in the request version, then converts it', async () => {
    await app().request('POST', v1, { body: widget('v1', 'patched', { size: 1 }) });
    const merge = await app().request('PATCH', `${v2}/patched`, {
      body: { spec: { replicas: 4 } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(merge.json.spec).toEqual({ replicas: 4 });
    const json = await app().request('PATCH', `${v2}/patched`, {
      body: [{ op: 'replace', path: '/spec/replicas', value: 5 }],
      headers: { 'Content-Type': 'application/json-patch+json' },
    });
    expect(json.status, json.text).toBe(200);
    // The merge and JSON patches made their manager the owner of spec.replicas: the apply takes it.
    const apply = await app().request('PATCH', `${v2}/patched?fieldManager=me&force=true`, {
      body: widget('v2', 'patched', { replicas: 6 }),
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    expect(apply.status, apply.text).toBe(200);
    expect((await app().request('GET', `${v1}/patched`)).json.spec.size).toBe(6);
    // A v1 body sent to v2 is refused, as kube's decoder refuses it.
    const wrong = await app().request('PUT', `${v2}/patched`, { body: widget('v1', 'patched', { size: 1 }) });
    expect(wrong.status).toBe(400);
  });

  it('lists, watches and selects fields in the request version', async () => {
    const list = await app().request('GET', `${v2}?fieldSelector=spec.replicas%3D3`);
    expect(list.json.kind).toBe('WidgetList');
    expect(list.json.apiVersion).toBe('widgets.test/v2');
    expect(list.json.items.map((w: { metadata: { name: string } }) => w.metadata.name)).toEqual(['a']);
    expect(list.json.items[0].spec.replicas).toBe(3);
    const v1List = await app().request('GET', `${v1}?fieldSelector=spec.size%3D3`);
    expect(v1List.json.items.map((w: { metadata: { name: string } }) => w.metadata.name)).toEqual(['a']);
    expect((await app().request('GET', `${v2}?fieldSelector=spec.size%3D3`)).status).toBe(400);
    const watch = await app().request('GET', `${v2}?watch=true&timeoutSeconds=0&fieldSelector=metadata.name%3Da`);
    const [event] = watch.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; object: { apiVersion: string; spec: unknown } });
    expect(event).toMatchObject({ type: 'ADDED', object: { apiVersion: 'widgets.test/v2', spec: { replicas: 3 } } });
  });

  it('deletes through either version, answering in it', async () => {
    const deleted = await app().request('DELETE', `${v2}/plain`);
    expect(deleted.json).toMatchObject({ apiVersion: 'widgets.test/v2', metadata: { name: 'plain' } });
    expect((await app().request('GET', `${v1}/plain`)).status).toBe(404);
  });
});
