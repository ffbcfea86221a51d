/**
 * The watch's hot path (issue 11): every watcher of the watch cache is handed the same
 * object for an event, so the event is converted once per version and serialized once
 * per (version, representation, media type), however many watchers there are. Counted
 * in process with the throwaway two-version `widgets.test` group: conversions with the
 * counter of its v2 conversion (test support), serializations as the JSON encodings of
 * `{type, object}` events (the only streaming wire format is JSON, which encodes with
 * JSON.stringify).
 */
import http from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { onJsonLines, until } from '../support/json-lines.js';
import { inProcessApp } from '../support/in-process-app.js';
import { fromStorageCount } from '../support/widgets/v2/conversion.js';
import { widgetsGroup } from '../support/widgets/register.js';

const widgets = (version: string, namespace: string) => `/apis/widgets.test/${version}/namespaces/${namespace}/widgets`;
const metadataOnly = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const table = 'application/json;as=Table;g=meta.k8s.io;v=v1';

interface Event {
  readonly type: string;
  readonly object: any;
}

/** A watch read as its events arrive. */
interface Watch {
  readonly events: Event[];
  /** Waits until `count` events arrived. */
  waitFor(count: number): Promise<void>;
  close(): void;
}

/** Opens a watch and resolves once its headers arrived. */
function openWatch(url: string, accept?: string): Promise<Watch> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: accept === undefined ? {} : { Accept: accept } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`watch ${url}: ${res.statusCode}`));
      const events: Event[] = [];
      const listeners = new Set<() => void>();
      onJsonLines(res, (event) => {
        events.push(event as Event);
        listeners.forEach((listener) => listener());
      });
      resolve({
        events,
        waitFor: (count) =>
          until(
            listeners,
            () => events.length >= count,
            20_000,
            () => `${count} events on ${url} (${accept ?? 'no Accept'}), got ${events.length}`,
          ),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

/** Counts the watch events JSON encodes from now on, by the apiVersion and kind of their object. */
function countEncodedEvents(): () => Map<string, number> {
  const stringify = vi.spyOn(JSON, 'stringify');
  return () => {
    const counts = new Map<string, number>();
    for (const [value] of stringify.mock.calls) {
      const event = value as Partial<Event> | null;
      if (typeof event !== 'object' || event === null || !('type' in event) || !('object' in event)) continue;
      const key = `${event.object.apiVersion} ${event.object.kind}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  };
}

describe('a watch event is converted and encoded once per version and media type, not once per watcher', () => {
  const app = inProcessApp([widgetsGroup]);
  const opened: Watch[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    opened.splice(0).forEach((watch) => watch.close());
  });

  async function watch(version: string, namespace: string, query: string, accept?: string): Promise<Watch> {
    const opening = await openWatch(`${app().url}${widgets(version, namespace)}?watch=true&${query}`, accept);
    opened.push(opening);
    return opening;
  }

  async function resourceVersionOf(namespace: string): Promise<string> {
    return (await app().request('GET', widgets('v1', namespace))).json.metadata.resourceVersion as string;
  }

  it('delivers every change to 40 watchers in two versions and three representations', async () => {
    const ns = 'many';
    const rv = await resourceVersionOf(ns);
    // Per version: 15 plain watchers (no Accept, as kubectl's raw watch; JSON; anything, as client-node), 4 metadata-only, 1 Table.
    const plainAccepts = [undefined, 'application/json', '*/*'];
    const byVersion = async (version: string) => ({
      plain: await Promise.all(Array.from({ length: 15 }, (_, i) => watch(version, ns, `resourceVersion=${rv}`, plainAccepts[i % 3]))),
      metadata: await Promise.all(Array.from({ length: 4 }, () => watch(version, ns, `resourceVersion=${rv}`, metadataOnly))),
      table: await watch(version, ns, `resourceVersion=${rv}`, table),
    });
    const watchers = { v1: await byVersion('v1'), v2: await byVersion('v2') };

    const conversionsBefore = fromStorageCount();
    const encoded = countEncodedEvents();
    // Written in v1, the storage version, so that every v2 conversion is the watchers'.
    const v1 = widgets('v1', ns);
    const expected: { type: string; name: string; size: number }[] = [];
    for (const [name, size] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['d', 4],
    ] as const) {
      const created = await app().request('POST', v1, { body: { apiVersion: 'widgets.test/v1', kind: 'Widget', metadata: { name }, spec: { size } } });
      expect(created.status, created.text).toBe(201);
      expected.push({ type: 'ADDED', name, size });
    }
    for (const [name, size] of [
      ['a', 10],
      ['b', 20],
    ] as const) {
      const patched = await app().request('PATCH', `${v1}/${name}`, {
        body: { spec: { size } },
        headers: { 'Content-Type': 'application/merge-patch+json' },
      });
      expect(patched.status, patched.text).toBe(200);
      expected.push({ type: 'MODIFIED', name, size });
    }
    for (const [name, size] of [
      ['c', 3],
      ['a', 10],
    ] as const) {
      expect((await app().request('DELETE', `${v1}/${name}`)).status).toBe(200);
      expected.push({ type: 'DELETED', name, size });
    }
    const n = expected.length;
    const all = [...Object.values(watchers.v1), ...Object.values(watchers.v2)].flat();
    await Promise.all(all.map((w) => w.waitFor(n)));

    // Every watcher has every change, in order, each in its own version and representation.
    const resourceVersions = watchers.v1.plain[0].events.map((e) => e.object.metadata.resourceVersion as string);
    expect(new Set(resourceVersions).size).toBe(n);
    for (const [version, sizeField] of [
      ['v1', 'size'],
      ['v2', 'replicas'],
    ] as const) {
      const { plain, metadata, table: tableWatch } = watchers[version];
      for (const w of plain) {
        expect(w.events.map((e) => [e.type, e.object.apiVersion, e.object.metadata.name, e.object.spec, e.object.metadata.resourceVersion])).toEqual(
          expected.map((e, i) => [e.type, `widgets.test/${version}`, e.name, { [sizeField]: e.size }, resourceVersions[i]]),
        );
      }
      for (const w of metadata) {
        expect(w.events.map((e) => [e.type, e.object.kind, e.object.metadata.name, e.object.metadata.resourceVersion])).toEqual(
          expected.map((e, i) => [e.type, 'PartialObjectMetadata', e.name, resourceVersions[i]]),
        );
      }
      // Column definitions come in a Table watcher's first event only.
      expect(tableWatch.events.map((e) => [e.type, e.object.rows[0].cells, e.object.columnDefinitions === null])).toEqual(
        expected.map((e, i) => [e.type, [e.name], i > 0]),
      );
    }

    // One v2 conversion per change, shared by the v2 watchers of every representation.
    expect(fromStorageCount() - conversionsBefore).toBe(n);
    // One encoding per change and (version, representation); a Table is each watcher's own.
    expect(Object.fromEntries(encoded())).toEqual({
      'widgets.test/v1 Widget': n,
      'widgets.test/v2 Widget': n,
      'meta.k8s.io/v1 PartialObjectMetadata': 2 * n,
      'meta.k8s.io/v1 Table': 2 * n,
    });
  });

  it('a change a selector turns into ADDED for one watcher stays MODIFIED for another, and a watcher catching up converts nothing again', async () => {
    const ns = 'selected';
    const rv = await resourceVersionOf(ns);
    // Written in v1, the storage version, so that every v2 conversion is the watchers'.
    const v1 = widgets('v1', ns);
    const patch = async (body: unknown) => {
      const patched = await app().request('PATCH', `${v1}/e`, { body, headers: { 'Content-Type': 'application/merge-patch+json' } });
      expect(patched.status, patched.text).toBe(200);
    };
    const everything = await watch('v2', ns, `resourceVersion=${rv}`);
    const created = await app().request('POST', v1, { body: { apiVersion: 'widgets.test/v1', kind: 'Widget', metadata: { name: 'e' }, spec: { size: 1 } } });
    expect(created.status, created.text).toBe(201);
    await patch({ metadata: { labels: { tier: 'gold' } } });
    await everything.waitFor(2);
    expect(everything.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED']);

    // From the same resourceVersion, a watcher of gold widgets reads those events from the watch cache, already converted.
    const conversionsBefore = fromStorageCount();
    const gold = await watch('v2', ns, `resourceVersion=${rv}&labelSelector=tier%3Dgold`);
    await patch({ spec: { size: 2 } });
    await Promise.all([everything.waitFor(3), gold.waitFor(2)]);
    expect(gold.events.map((e) => [e.type, e.object.metadata.labels, e.object.spec])).toEqual([
      ['ADDED', { tier: 'gold' }, { replicas: 1 }],
      ['MODIFIED', { tier: 'gold' }, { replicas: 2 }],
    ]);
    expect(everything.events.map((e) => [e.type, e.object.spec])).toEqual([
      ['ADDED', { replicas: 1 }],
      ['MODIFIED', { replicas: 1 }],
      ['MODIFIED', { replicas: 2 }],
    ]);
    // Only the resize was new to v2, and both watchers share its conversion.
    expect(fromStorageCount() - conversionsBefore).toBe(1);
  });
});
