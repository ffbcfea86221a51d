/**
 * The conformance tests of reads: selectors with every operator, pages of 2 at one
 * snapshot, `resourceVersion=0` with a limit, the count of what follows a first page, a
 * get at exactly a resourceVersion,
 * and all of it on resources larger than an object cache may hold (the suite runs with
 * a cache of 10 objects as well as without one), while they grow past that and shrink.
 */
import { expect, it } from 'vitest';
import type { KubeObject } from '../../src/machinery/meta/object.js';
import { matchesFields, parseFieldSelector } from '../../src/machinery/selectors/field-selector.js';
import { matchesLabels, parseLabelSelector } from '../../src/machinery/selectors/label-selector.js';
import type { ListRequest, ListResult, ResourceStorage, StorageKey } from '../../src/storage/interfaces.js';
import { expectStorageError, fieldsOf, type StorageBackend } from './conformance-support.js';

/** A test object at `key`, with labels. */
const thing = (key: StorageKey, labels: Record<string, string> = {}, spec: unknown = {}): KubeObject => ({
  apiVersion: 'test/v1',
  kind: 'Thing',
  metadata: { name: key.name, namespace: key.namespace, uid: `uid-${key.namespace}-${key.name}`, labels },
  spec,
});

const keyOf = (o: KubeObject): string => `${o.metadata!.namespace}/${o.metadata!.name}`;
const keys = (items: readonly KubeObject[]): string[] => items.map(keyOf);

/** Every page of a list from `first` on, each of `limit`, continued at the first page's resourceVersion. */
async function walk(storage: ResourceStorage, namespace: string | undefined, request: ListRequest, between?: () => Promise<void>): Promise<ListResult[]> {
  const pages = [await storage.list(namespace, request)];
  for (let page = pages[0]; page.continueAfter;) {
    await between?.();
    page = await storage.list(namespace, { ...request, notOlderThan: undefined, resourceVersion: pages[0].resourceVersion, after: page.continueAfter });
    expect(page.resourceVersion).toBe(pages[0].resourceVersion);
    pages.push(page);
  }
  for (const page of pages.slice(0, -1)) expect(page.items.length).toBeLessThanOrEqual(request.limit ?? Infinity);
  return pages;
}

const everything = (pages: readonly ListResult[]): string[] => pages.flatMap((p) => keys(p.items));

/** Defines the tests in the current suite, on the backend `backend()` returns once the suite has opened it. */
export function readTests(backend: () => StorageBackend): void {
  it('selects with every label operator and by the key’s fields, in pages of 2, as the selectors say', async () => {
    const selected = backend().store.forResource('selectors.test', fieldsOf);
    const objects = Array.from({ length: 24 }, (_, i) =>
      thing(
        { namespace: `ns-${i % 3}`, name: `o-${String(i).padStart(2, '0')}` },
        {
          ...(i % 4 === 0 ? {} : { tier: i % 4 === 1 ? 'web' : 'db' }),
          ...(i % 5 === 0 ? { canary: '' } : {}),
          n: String(i),
        },
      ),
    );
    for (const o of objects) await selected.create({ namespace: o.metadata!.namespace!, name: o.metadata!.name! }, o);
    const sorted = [...objects].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
    for (const text of ['tier=web', 'tier==db', 'tier!=web', 'tier in (web,x)', 'tier notin (web)', 'canary', '!tier', 'canary,tier', 'n>20', 'n<3,!canary']) {
      const labelSelector = parseLabelSelector(text);
      for (const namespace of [undefined, 'ns-1']) {
        const expected = keys(
          sorted.filter((o) => (namespace === undefined || o.metadata!.namespace === namespace) && matchesLabels(labelSelector, o.metadata!.labels)),
        );
        expect(everything(await walk(selected, namespace, { predicate: { labelSelector }, limit: 2 })), `${text} in ${namespace ?? 'all'}`).toEqual(expected);
      }
    }
    const keyFields = (o: KubeObject) => ({ 'metadata.name': o.metadata!.name!, 'metadata.namespace': o.metadata!.namespace! });
    for (const text of [
      'metadata.name=o-07',
      'metadata.name!=o-07',
      'metadata.namespace=ns-2',
      'metadata.namespace!=ns-2,metadata.name!=o-00',
      'metadata.name=',
    ]) {
      const fieldSelector = parseFieldSelector(text);
      const expected = keys(sorted.filter((o) => matchesFields(fieldSelector, keyFields(o))));
      expect(everything(await walk(selected, undefined, { predicate: { fieldSelector }, limit: 2 })), text).toEqual(expected);
    }
  });

  it('reads a resource larger than a cache may hold as it grows and shrinks: gets, pages of 2 at one snapshot, resourceVersion=0', async () => {
    const growing = backend().store.forResource('growing.test', fieldsOf);
    const at = (i: number): StorageKey => ({ namespace: `ns-${i % 3}`, name: `g-${String(i).padStart(2, '0')}` });
    for (let i = 0; i < 8; i++) await growing.create(at(i), thing(at(i), {}, { v: 1 }));
    // Read while small (a cache may load it), then grow past 10 objects.
    expect((await growing.list(undefined, { predicate: {} })).items).toHaveLength(8);
    for (let i = 8; i < 25; i++) await growing.create(at(i), thing(at(i), {}, { v: 1 }));
    for (const i of [0, 12, 24]) expect((await growing.get(at(i))).spec).toEqual({ v: 1 });

    const all = keys((await growing.list(undefined, { predicate: {} })).items);
    expect(all).toHaveLength(25);
    // Pages of 2 stay one snapshot while objects change, go and come between them.
    let n = 25;
    const pages = await walk(growing, undefined, { predicate: {}, limit: 2, countRemaining: true }, async () => {
      await growing.guaranteedUpdate(at(n % 25), (o) => ({ ...o!, spec: { v: 2 } })).catch(() => undefined);
      await growing.delete(at((n + 7) % 25)).catch(() => undefined);
      await growing.create({ namespace: 'ns-0', name: `new-${n}` }, thing({ namespace: 'ns-0', name: `new-${n}` }));
      n++;
    });
    expect(everything(pages)).toEqual(all);
    expect(pages.flatMap((p) => p.items.map((o) => o.spec))).toEqual(all.map(() => ({ v: 1 })));
    expect(pages[0].remainingItemCount).toBe(23);
    for (const page of pages.slice(1)) expect(page.remainingItemCount).toBeUndefined();

    // resourceVersion=0 with a limit: the objects in key order, whole or a first page to continue from.
    const now = keys((await growing.list(undefined, { predicate: {} })).items);
    expect(everything(await walk(growing, undefined, { predicate: {}, notOlderThan: '0', limit: 2 }))).toEqual(now);

    // Shrink under the bound: every read agrees again.
    for (const key of now.slice(5)) {
      const [namespace, name] = key.split('/');
      await growing.delete({ namespace, name });
    }
    expect(keys((await growing.list(undefined, { predicate: {} })).items)).toEqual(now.slice(0, 5));
    expect(keys((await growing.list('ns-0', { predicate: {}, notOlderThan: '0' })).items)).toEqual(now.slice(0, 5).filter((k) => k.startsWith('ns-0/')));
    const [namespace, name] = now[6].split('/');
    await expectStorageError(growing.get({ namespace, name }), 'KeyNotFound');
  });

  it('lists each object as its JSON text exactly as it lists the object', async () => {
    const texts = backend().store.forResource('texts.test', fieldsOf);
    const at = (i: number): StorageKey => ({ namespace: `ns-${i % 2}`, name: `t-${String(i).padStart(2, '0')}` });
    // Fewer than a cache of 10 holds, so a cached store serves it from memory.
    for (let i = 0; i < 9; i++) await texts.create(at(i), thing(at(i), { n: String(i) }, { text: 'a\u0000b\u0001c\\u0000', i }));
    const then = await backend().store.currentResourceVersion();
    await texts.guaranteedUpdate(at(3), (o) => ({ ...o!, spec: { changed: true } }));
    await texts.delete(at(4));
    for (const request of [
      { predicate: {} },
      { predicate: {}, notOlderThan: '0' },
      { predicate: {}, limit: 3, countRemaining: true },
      { predicate: { labelSelector: parseLabelSelector('n in (1,3,4,5)') } },
      { predicate: {}, resourceVersion: then, limit: 4 },
      { predicate: {}, resourceVersion: then, after: at(2), limit: 4 },
    ] satisfies ListRequest[]) {
      for (const namespace of [undefined, 'ns-1']) {
        const objects = await texts.list(namespace, request);
        const json = await texts.listJson(namespace, request);
        expect({ ...json, items: json.items.map((text) => JSON.parse(text) as unknown) }).toEqual(objects);
      }
    }
  });

  it('counts what follows a first page at an older resourceVersion from what changed since', async () => {
    const counted = backend().store.forResource('remaining.test', fieldsOf);
    const at = (name: string): StorageKey => ({ namespace: 'ns', name });
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) await counted.create(at(name), thing(at(name)));
    await counted.create({ namespace: 'other', name: 'z' }, thing({ namespace: 'other', name: 'z' }));
    const then = await backend().store.currentResourceVersion();
    await counted.create(at('g'), thing(at('g')));
    await counted.create(at('h'), thing(at('h')));
    await counted.delete(at('b'));
    await counted.guaranteedUpdate(at('c'), (o) => ({ ...o!, spec: { v: 2 } }));
    await counted.create(at('i'), thing(at('i')));
    await counted.delete(at('i'));
    const past = await counted.list('ns', { predicate: {}, limit: 2, resourceVersion: then, countRemaining: true });
    expect(keys(past.items)).toEqual(['ns/a', 'ns/b']);
    expect(past.remainingItemCount).toBe(4);
    expect((await counted.list(undefined, { predicate: {}, limit: 2, resourceVersion: then, countRemaining: true })).remainingItemCount).toBe(5);
    const current = await counted.list('ns', { predicate: {}, limit: 2, countRemaining: true });
    expect(keys(current.items)).toEqual(['ns/a', 'ns/c']);
    expect(current.remainingItemCount).toBe(5);
    // Selected lists are not counted, as kube counts only when every object counts.
    expect(
      (await counted.list('ns', { predicate: { labelSelector: parseLabelSelector('!x') }, limit: 2, countRemaining: true })).remainingItemCount,
    ).toBeUndefined();
  });

  it('gets an object exactly as it was at a resourceVersion, across a delete and a re-create, where a cache holds its newest state', async () => {
    const past = backend().store.forResource('exact-get.test', fieldsOf);
    const at = (name: string): StorageKey => ({ namespace: 'ns', name });
    for (let i = 0; i < 3; i++) await past.create(at(`o${i}`), thing(at(`o${i}`)));
    // Loaded into the cache (where there is one), which then holds the newest states only.
    expect((await past.list('ns', { predicate: {}, notOlderThan: '0' })).items).toHaveLength(3);
    const before = await backend().store.currentResourceVersion();
    const created = await past.create(at('x'), thing(at('x'), {}, { v: 1 }));
    const { object: updated } = await past.guaranteedUpdate(at('x'), (o) => ({ ...o!, spec: { v: 2 } }));
    const deleted = await past.delete(at('x'));
    const recreated = await past.create(at('x'), { ...thing(at('x'), {}, { v: 3 }), metadata: { name: 'x', namespace: 'ns', uid: 'uid-x-again' } });
    const exactly = (resourceVersion: string) => past.get(at('x'), { resourceVersion, resourceVersionMatch: 'Exact' });
    await expectStorageError(exactly(before), 'KeyNotFound');
    expect((await exactly(created.metadata.resourceVersion)).spec).toEqual({ v: 1 });
    expect((await exactly(updated.metadata.resourceVersion)).spec).toEqual({ v: 2 });
    await expectStorageError(exactly(deleted!.metadata.resourceVersion), 'KeyNotFound');
    expect((await exactly(recreated.metadata.resourceVersion)).metadata.uid).toBe('uid-x-again');
    // Not older than a resourceVersion is still the newest object, from the cache where it holds the resource.
    expect((await past.get(at('x'), { resourceVersion: created.metadata.resourceVersion })).spec).toEqual({ v: 3 });
  });
}
