/**
 * The conformance tests of an object's history: its revisions newest first, a page at a
 * time (every revision exactly once across pages, also while writes go on), a deleted
 * object's revisions by name and by uid when its name was created again, and the origin
 * each write recorded.
 */
import { expect, it } from 'vitest';
import type { HistoryRequest, ResourceStorage, Revision, StorageKey, WriteOrigin } from '../../src/storage/interfaces.js';
import { fieldsOf, object, type StorageBackend } from './conformance-support.js';

const origin = (operation: WriteOrigin['operation'], user: string, fieldManager = 'test-manager', subresource = ''): WriteOrigin => ({
  operation,
  subresource,
  fieldManager,
  user,
});

/** Every revision of `key`, read in pages of `limit`, running `between` before each page after the first. */
async function readAll(storage: ResourceStorage, key: StorageKey, request: HistoryRequest, between?: () => Promise<void>): Promise<Revision[]> {
  const revisions: Revision[] = [];
  let page = await storage.history(key, request);
  revisions.push(...page.revisions);
  while (page.continueBefore !== undefined) {
    expect(page.revisions).toHaveLength(request.limit);
    await between?.();
    page = await storage.history(key, { ...request, before: page.continueBefore });
    revisions.push(...page.revisions);
  }
  return revisions;
}

const versionsOf = (revisions: readonly Revision[]): string[] => revisions.map((r) => r.resourceVersion);

/** Defines the tests in the current suite, on the backend `backend()` returns once the suite has opened it. */
export function historyTests(backend: () => StorageBackend): void {
  it('reads an object’s revisions newest first, in pages, each exactly once while writes go on', async () => {
    const storage = backend().store.forResource('histories.test', fieldsOf);
    const key = { namespace: 'ns', name: 'h' };
    const written = [(await storage.create(key, object('h', { spec: { n: 0 } }))).metadata.resourceVersion];
    for (let n = 1; n < 7; n++) {
      const { object: updated } = await storage.guaranteedUpdate(key, (c) => ({ ...c!, spec: { n } }));
      written.push(updated.metadata.resourceVersion);
      // Another object's writes are not this one's history.
      await storage.create({ namespace: 'ns', name: `h-other-${n}` }, object(`h-other-${n}`));
    }
    const first = await storage.history(key, { limit: 100 });
    expect(versionsOf(first.revisions)).toEqual([...written].reverse());
    expect(first.revisions.map((r) => r.type)).toEqual([...Array<string>(6).fill('MODIFIED'), 'ADDED']);
    expect(first.revisions.map((r) => (r.object.spec as { n: number }).n)).toEqual([6, 5, 4, 3, 2, 1, 0]);
    for (const r of first.revisions) {
      expect(r.object.metadata.resourceVersion).toBe(r.resourceVersion);
      expect(Object.isFrozen(r.object)).toBe(true);
      expect(r.time).toBeInstanceOf(Date);
      expect(r.origin).toBeUndefined();
    }
    expect(first.continueBefore).toBeUndefined();
    expect(BigInt(first.resourceVersion) >= BigInt(written.at(-1)!)).toBe(true);

    // Pages of 3 while the object keeps changing: the newer revisions are after the first page's start, so none is read twice or skipped.
    let n = 7;
    const paged = await readAll(storage, key, { limit: 3 }, async () => {
      await storage.guaranteedUpdate(key, (c) => ({ ...c!, spec: { n: n++ } }));
    });
    expect(versionsOf(paged)).toEqual([...written].reverse());
  });

  it('keeps a deleted object’s revisions by name, and tells a re-created name’s incarnations apart by uid', async () => {
    const storage = backend().store.forResource('incarnations.test', fieldsOf);
    const key = { namespace: 'ns', name: 'again' };
    const incarnation = async (uid: string, updates: number, remove: boolean): Promise<string[]> => {
      const rvs = [(await storage.create(key, { ...object('again'), metadata: { ...object('again').metadata, uid } })).metadata.resourceVersion];
      for (let n = 0; n < updates; n++) rvs.push((await storage.guaranteedUpdate(key, (c) => ({ ...c!, spec: { n } }))).object.metadata.resourceVersion);
      if (remove) rvs.push((await storage.delete(key))!.metadata.resourceVersion);
      return rvs;
    };
    const one = await incarnation('uid-one', 2, true);
    const deleted = await storage.history(key, { limit: 10 });
    expect(deleted.revisions.map((r) => r.type)).toEqual(['DELETED', 'MODIFIED', 'MODIFIED', 'ADDED']);
    // A deletion's revision is the object as it was deleted, at the deletion's resourceVersion.
    expect(deleted.revisions[0].object.spec).toEqual({ n: 1 });
    expect(deleted.revisions[0].object.metadata.resourceVersion).toBe(one.at(-1));

    const two = await incarnation('uid-two', 1, true);
    const three = await incarnation('uid-three', 3, false);
    expect(versionsOf(await readAll(storage, key, { limit: 2 }))).toEqual([...one, ...two, ...three].reverse());
    for (const [uid, rvs] of [
      ['uid-one', one],
      ['uid-two', two],
      ['uid-three', three],
    ] as const) {
      const revisions = await readAll(storage, key, { limit: 2, uid });
      expect(versionsOf(revisions)).toEqual([...rvs].reverse());
      for (const r of revisions) expect(r.object.metadata.uid).toBe(uid);
    }
    expect((await storage.history(key, { limit: 10, uid: 'uid-never' })).revisions).toEqual([]);
    expect((await storage.history({ namespace: 'ns', name: 'never' }, { limit: 10 })).revisions).toEqual([]);
  });

  it('records with each revision the origin its write gave', async () => {
    const storage = backend().store.forResource('origins.test', fieldsOf);
    const key = { namespace: 'ns', name: 'o' };
    await storage.create(key, object('o'), origin('create', 'alice', 'kubectl-create'));
    await storage.guaranteedUpdate(key, (c) => ({ ...c!, spec: { n: 1 } }), { origin: origin('apply', 'bob', 'kubectl') });
    await storage.guaranteedUpdate(key, (c) => ({ ...c!, status: { phase: 'Running' } }), {
      origin: origin('update', 'system:serviceaccount:x:y', 'ctl', 'status'),
    });
    // Unusual text travels unchanged: an escape storage uses, and text a JSON string must escape.
    await storage.guaranteedUpdate(key, (c) => ({ ...c!, spec: { n: 2 } }), { origin: origin('patch', 'we\u0000ird "user"\u0001', 'm\\n') });
    await storage.guaranteedUpdate(key, (c) => ({ ...c!, spec: { n: 3 } }));
    await storage.delete(key, undefined, origin('delete', 'carol', ''));
    const { revisions } = await storage.history(key, { limit: 10 });
    expect(revisions.map((r) => r.origin)).toEqual([
      origin('delete', 'carol', ''),
      undefined,
      origin('patch', 'we\u0000ird "user"\u0001', 'm\\n'),
      origin('update', 'system:serviceaccount:x:y', 'ctl', 'status'),
      origin('apply', 'bob', 'kubectl'),
      origin('create', 'alice', 'kubectl-create'),
    ]);
    // An update that creates (ignoreNotFound) records its origin on the ADDED revision.
    await storage.guaranteedUpdate(key, () => object('o'), { ignoreNotFound: true, origin: origin('apply', 'dave') });
    const recreated = await storage.history(key, { limit: 1 });
    expect(recreated.revisions[0]).toMatchObject({ type: 'ADDED', origin: origin('apply', 'dave') });
    expect(recreated.continueBefore).toBe(recreated.revisions[0].resourceVersion);
  });
}
