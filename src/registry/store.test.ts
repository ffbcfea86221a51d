/**
 * The generic store's semantics, table by table, on an in-memory PGlite: the order of
 * create and update (system metadata, strategy, validation, admission), optimistic
 * concurrency, create-on-update, deletion with finalizers, and dry runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cairnGroup } from '../apis/cairn/register.js';
import type { KubeObject, StoredObject } from '../machinery/meta/object.js';
import { StatusError, isStatusError, type Status } from '../machinery/status.js';
import { migrateToLatest } from '../storage/migrate.js';
import { PGliteDatabase } from '../storage/pglite-database.js';
import { SqlObjectStore } from '../storage/sql-object-store.js';
import { Registry } from './registry.js';
import type { Store } from './store.js';

const live = { dryRun: false };
const dry = { dryRun: true };
const allow = () => {};
const pipeline = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'cairn.dev/v1',
  kind: 'Pipeline',
  metadata: { name, ...((extra.metadata as object) ?? {}) },
  spec: { replicas: 1, steps: [{ name: 'fetch' }], ...(extra.spec ?? {}) },
  ...(extra.status ? { status: extra.status } : {}),
});

/** The Status of the error `promise` rejects with. */
async function statusOf(promise: Promise<unknown>): Promise<Status> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isStatusError(error)) throw new Error(`expected a Status error, got ${String(error)}`);
  return error.status;
}

async function failure(promise: Promise<unknown>): Promise<{ code: number; reason: string; message: string }> {
  const { code, reason = '', message = '' } = await statusOf(promise);
  return { code, reason, message };
}

/** A 409 Conflict Status about Pipeline `name`, as kube writes it. */
const conflictStatus = (message: string, name: string, kind = 'pipelines'): Status => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  reason: 'Conflict',
  details: { name, group: 'cairn.dev', kind },
  code: 409,
});

describe('Store', () => {
  let database: PGliteDatabase;
  let objects: SqlObjectStore;
  let store: Store;
  let status: Store;

  beforeAll(async () => {
    database = await PGliteDatabase.open();
    await migrateToLatest(database);
    objects = await SqlObjectStore.open(database);
    const storages = new Registry([cairnGroup], objects).storages('cairn.dev', 'pipelines')!;
    store = storages.store;
    status = storages.status!;
  });
  afterAll(async () => {
    await objects.close();
    await database.close();
  });

  describe('watch', () => {
    it('streams the initial state a page at a time from one snapshot, then every change after it, each once', async () => {
      for (const name of ['w1', 'w2', 'w3', 'w4', 'w5']) await store.create('initial', pipeline(name), allow, live);
      const started = await store.watch('initial', { resourceVersion: '', sendInitialEvents: true, initialEventsPageSize: 2 });
      const initial = started.initial[Symbol.asyncIterator]();
      const names: string[] = [];
      names.push(((await initial.next()).value as StoredObject).metadata.name);
      // Written while the initial state is still being read, and sorting after it: the later pages are of the first one's snapshot, so it is a watch event and not an initial object.
      const late = await store.create('initial', pipeline('w9-late'), allow, live);
      for (let next = await initial.next(); next.done !== true; next = await initial.next()) names.push(next.value.metadata.name);
      expect(names).toEqual(['w1', 'w2', 'w3', 'w4', 'w5']);
      expect(BigInt(started.initialEventsEnd!)).toBeLessThan(BigInt(late.metadata.resourceVersion));
      const events = started.watcher[Symbol.asyncIterator]();
      const event = (await events.next()).value;
      expect(event).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'w9-late' } } });
      started.watcher.stop();
    });
  });

  describe('create', () => {
    it('sets system metadata, drops status, and stores what validation passed', async () => {
      const created = await store.create(
        'ns',
        pipeline('c1', { metadata: { uid: 'forged', resourceVersion: '0' }, status: { phase: 'Running' } }),
        allow,
        live,
      );
      expect(created.metadata).toMatchObject({ name: 'c1', namespace: 'ns', generation: 1 });
      expect(created.metadata.uid).not.toBe('forged');
      expect(created.metadata.resourceVersion).not.toBe('0');
      expect(created).not.toHaveProperty('status');
    });

    it.each<[string, KubeObject, string, number, string]>([
      ['a namespace other than the request', pipeline('c2', { metadata: { namespace: 'other' } }), 'ns', 400, 'BadRequest'],
      ['a negative replica count', pipeline('c3', { spec: { replicas: -1 } }), 'ns', 422, 'Invalid'],
      ['duplicate step names', pipeline('c4', { spec: { steps: [{ name: 'a' }, { name: 'a' }] } }), 'ns', 422, 'Invalid'],
      ['no name', { ...pipeline(''), metadata: {} }, 'ns', 422, 'Invalid'],
      ['an existing name', pipeline('c1'), 'ns', 409, 'AlreadyExists'],
      ['a resourceVersion, as kube’s storage does', pipeline('c5', { metadata: { resourceVersion: '9' } }), 'ns', 400, 'BadRequest'],
    ])('refuses %s', async (_, object, namespace, code, reason) => {
      expect(await failure(store.create(namespace, object, allow, live))).toMatchObject({ code, reason });
    });

    it('runs validating admission after the strategy, on the prepared object, and stores nothing it refuses', async () => {
      const seen: KubeObject[] = [];
      const refuse = (object: KubeObject) => {
        seen.push(object);
        throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 403, reason: 'Forbidden', message: 'no' });
      };
      expect(await failure(store.create('ns', pipeline('refused'), refuse, live))).toMatchObject({ code: 403 });
      expect(seen[0].metadata).toMatchObject({ name: 'refused', namespace: 'ns', generation: 1 });
      expect(await failure(store.get({ namespace: 'ns', name: 'refused' }))).toMatchObject({ code: 404 });
    });

    it('generates a name from generateName', async () => {
      const generated = await store.create('ns', { ...pipeline(''), metadata: { generateName: 'gen-' } }, allow, live);
      expect(generated.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
    });
  });

  describe('update', () => {
    let base: StoredObject;
    beforeAll(async () => {
      base = await store.create('ns', pipeline('u1'), allow, live);
    });

    it('computes the new object from the current one, carries system metadata over, and bumps generation on spec changes', async () => {
      let current: KubeObject | undefined;
      const { object, created } = await store.update(
        { namespace: 'ns', name: 'u1' },
        (c) => {
          current = c;
          return { ...c!, spec: { ...(c!.spec as object), replicas: 2 }, metadata: { name: 'u1' } };
        },
        allow,
        allow,
        false,
        live,
      );
      expect(created).toBe(false);
      expect(current!.metadata!.resourceVersion).toBe(base.metadata.resourceVersion);
      expect(object.metadata).toMatchObject({ uid: base.metadata.uid, creationTimestamp: base.metadata.creationTimestamp, generation: 2 });
      expect(object.spec).toMatchObject({ replicas: 2 });
    });

    it.each<[string, (c: StoredObject) => KubeObject, number, string]>([
      ['a stale resourceVersion', (c) => ({ ...c, metadata: { ...c.metadata, resourceVersion: '1' } }), 409, 'Conflict'],
      // Without a uid precondition (a patch), a changed uid is immutable metadata.
      ['a changed uid', (c) => ({ ...c, metadata: { ...c.metadata, uid: 'other' } }), 422, 'Invalid'],
      ['an invalid spec', (c) => ({ ...c, spec: { replicas: 'many' } }), 422, 'Invalid'],
    ])('refuses %s', async (_, change, code, reason) => {
      expect(await failure(store.update({ namespace: 'ns', name: 'u1' }, (c) => change(c!), allow, allow, false, live))).toMatchObject({ code, reason });
    });

    it("checks a PUT body's uid as a precondition first: 409 naming the etcd key, as kube's storage error does", async () => {
      const key = { namespace: 'ns', name: 'u1' };
      let called = false;
      const objInfo = (c: StoredObject | undefined) => {
        called = true;
        return { ...c!, metadata: { ...c!.metadata, resourceVersion: '1' } };
      };
      const options = { ...live, preconditions: { uid: 'other' } };
      expect(await statusOf(store.update(key, objInfo, allow, allow, false, options))).toEqual(
        conflictStatus(
          `Operation cannot be fulfilled on pipelines.cairn.dev "u1": StorageError: invalid object, Code: 4, Key: /registry/cairn.dev/pipelines/ns/u1, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID in object meta: ${base.metadata.uid}`,
          'u1',
        ),
      );
      expect(called).toBe(false);
      const same = await store.update(key, (c) => c!, allow, allow, false, { ...dry, preconditions: { uid: base.metadata.uid } });
      expect(same.object.metadata.uid).toBe(base.metadata.uid);
    });

    it('answers 404 for a missing object, and creates it with forceAllowCreate (as apply does)', async () => {
      const key = { namespace: 'ns', name: 'u2' };
      expect(await failure(store.update(key, () => pipeline('u2'), allow, allow, false, live))).toMatchObject({ code: 404 });
      let sawCurrent: unknown = 'not called';
      const { object, created } = await store.update(
        key,
        (c) => {
          sawCurrent = c;
          return pipeline('u2');
        },
        allow,
        allow,
        true,
        live,
      );
      expect(sawCurrent).toBeUndefined();
      expect(created).toBe(true);
      expect(object.metadata).toMatchObject({ name: 'u2', namespace: 'ns', generation: 1 });
    });

    it('through /status takes only the status, keeping spec and metadata as stored', async () => {
      const { object } = await status.update(
        { namespace: 'ns', name: 'u1' },
        (c) => ({ ...c!, spec: { replicas: 9 }, metadata: { ...c!.metadata, labels: { sneaky: 'yes' } }, status: { phase: 'Running' } }),
        allow,
        allow,
        false,
        live,
      );
      expect(object.status).toEqual({ phase: 'Running' });
      expect(object.spec).toMatchObject({ replicas: 2 });
      expect(object.metadata.labels).toBeUndefined();
      // The main resource keeps the stored status in turn.
      const main = await store.update({ namespace: 'ns', name: 'u1' }, (c) => ({ ...c!, status: { phase: 'Failed' } }), allow, allow, false, live);
      expect(main.object.status).toEqual({ phase: 'Running' });
    });

    it('removes an object being deleted when an update takes its last finalizer, answering with the object as updated', async () => {
      const key = { namespace: 'ns', name: 'held' };
      await store.create('ns', pipeline('held', { metadata: { finalizers: ['example.com/hold'] } }), allow, live);
      const { object: marked } = await store.delete(key, { dryRun: false });
      expect(marked.metadata.deletionTimestamp).toBeDefined();
      const unfinalized = (c: StoredObject | undefined) => ({ ...c!, metadata: { ...c!.metadata, finalizers: [] } });
      const dryRun = await store.update(key, unfinalized, allow, allow, false, dry);
      expect(dryRun.object.metadata.finalizers).toBeUndefined();
      expect((await store.get(key)).metadata.finalizers).toEqual(['example.com/hold']);
      const { object, created } = await store.update(key, unfinalized, allow, allow, false, live);
      expect(created).toBe(false);
      // kube answers with what the update made: no finalizers, at the resourceVersion it was read at.
      expect(object.metadata.finalizers).toBeUndefined();
      expect(object.metadata).toMatchObject({
        resourceVersion: marked.metadata.resourceVersion,
        deletionTimestamp: marked.metadata.deletionTimestamp,
        generation: 2,
      });
      expect(await failure(store.get(key))).toMatchObject({ code: 404 });
    });
  });

  describe('delete', () => {
    // As kube's rest.BeforeDelete words them: the kind, not the resource, is named.
    it.each<[string, (d1: StoredObject) => Record<string, unknown>, (d1: StoredObject) => string]>([
      [
        'a stale uid precondition',
        () => ({ preconditions: { uid: 'other' } }),
        (d1) =>
          `the UID in the precondition (other) does not match the UID in record (${d1.metadata.uid}). The object might have been deleted and then recreated`,
      ],
      [
        'an empty uid precondition',
        () => ({ preconditions: { uid: '' } }),
        (d1) => `the UID in the precondition () does not match the UID in record (${d1.metadata.uid})`,
      ],
      [
        'a stale resourceVersion precondition',
        () => ({ preconditions: { resourceVersion: '1' } }),
        (d1) =>
          `the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${d1.metadata.resourceVersion}). The object might have been modified`,
      ],
    ])('refuses %s with 409 naming the kind', async (_, options, why) => {
      const key = { namespace: 'ns', name: 'd1' };
      const d1 = await store.create('ns', pipeline('d1'), allow, live).catch(() => store.get(key));
      for (const dryRun of [true, false]) {
        const status = await statusOf(store.delete(key, { dryRun, ...options(d1) }));
        expect(status).toEqual(
          conflictStatus(expect.stringContaining(`Operation cannot be fulfilled on Pipeline.cairn.dev "d1": ${why(d1)}`) as never, 'd1', 'Pipeline'),
        );
      }
    });

    it('marks instead of removing while finalizers hold the object, as the propagation policy says', async () => {
      await store.create('ns', pipeline('d2'), allow, live);
      const { object: marked, deleted } = await store.delete({ namespace: 'ns', name: 'd2' }, { dryRun: false, propagationPolicy: 'Foreground' });
      expect(deleted).toBe(false);
      expect(marked.metadata.finalizers).toEqual(['foregroundDeletion']);
      expect(marked.metadata.deletionGracePeriodSeconds).toBe(0);
      const dryRun = await store.delete({ namespace: 'ns', name: 'd1' }, { dryRun: true });
      expect(dryRun).toMatchObject({ deleted: true, object: { metadata: { name: 'd1' } } });
      expect((await store.get({ namespace: 'ns', name: 'd1' })).metadata.name).toBe('d1');
      expect(await store.delete({ namespace: 'ns', name: 'd1' }, { dryRun: false })).toMatchObject({ deleted: true, object: { metadata: { name: 'd1' } } });
    });

    it('bumps the generation when it first marks an object, as kube does, and not again', async () => {
      const key = { namespace: 'ns', name: 'd3' };
      await store.create('ns', pipeline('d3', { metadata: { finalizers: ['example.com/hold'] } }), allow, live);
      const dryRun = await store.delete(key, { dryRun: true });
      expect(dryRun).toMatchObject({ deleted: false, object: { metadata: { generation: 2 } } });
      expect((await store.get(key)).metadata.generation).toBe(1);
      const first = await store.delete(key, { dryRun: false });
      expect(first).toMatchObject({ deleted: false, object: { metadata: { generation: 2, deletionGracePeriodSeconds: 0 } } });
      const again = await store.delete(key, { dryRun: false, propagationPolicy: 'Background' });
      expect(again.object.metadata).toMatchObject({ generation: 2, deletionTimestamp: first.object.metadata.deletionTimestamp });
    });
  });

  describe('dry runs', () => {
    const key = (name: string) => ({ namespace: 'dry', name });
    /** What storage holds of `name`: the object, or the code of the Status its absence gets. */
    const held = async (name: string): Promise<StoredObject | number> => {
      try {
        return await store.get(key(name));
      } catch (error) {
        if (isStatusError(error)) return error.status.code;
        throw error;
      }
    };
    const heldByFinalizer = (name: string) => pipeline(name, { metadata: { finalizers: ['example.com/hold'] } });

    it.each<[string, ((name: string) => KubeObject) | undefined, (name: string) => Promise<unknown>, object]>([
      ['a create', undefined, (name) => store.create('dry', pipeline(name), allow, dry), { metadata: { namespace: 'dry', generation: 1 } }],
      [
        'an update',
        pipeline,
        async (name) => (await store.update(key(name), (c) => ({ ...c!, spec: { ...(c!.spec as object), replicas: 5 } }), allow, allow, false, dry)).object,
        { spec: { replicas: 5 }, metadata: { generation: 2 } },
      ],
      [
        'a create through update (apply)',
        undefined,
        async (name) => (await store.update(key(name), () => pipeline(name), allow, allow, true, dry)).object,
        { metadata: { namespace: 'dry', generation: 1 } },
      ],
      [
        'a status update',
        pipeline,
        async (name) => (await status.update(key(name), (c) => ({ ...c!, status: { phase: 'Running' } }), allow, allow, false, dry)).object,
        { status: { phase: 'Running' } },
      ],
      ['a delete', pipeline, (name) => store.delete(key(name), dry), { deleted: true }],
      [
        'a delete a finalizer holds',
        heldByFinalizer,
        (name) => store.delete(key(name), dry),
        { deleted: false, object: { metadata: { deletionTimestamp: expect.any(String) } } },
      ],
    ])('answers %s as the write would and stores nothing', async (what, existing, write, answer) => {
      const name = `dry-${what.replaceAll(/[^a-z]+/g, '-').replace(/-$/, '')}`;
      if (existing) await store.create('dry', existing(name), allow, live);
      const before = await held(name);
      expect(await write(name)).toMatchObject(answer);
      expect(await held(name)).toEqual(before);
    });
  });
});
