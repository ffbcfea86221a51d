/**
 * The generic store's semantics, table by table, on an in-memory PGlite: the order of
 * create and update (system metadata, strategy, validation, admission), optimistic
 * concurrency, create-on-update, deletion with finalizers, and dry runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cairnGroup } from '../apis/cairn/register.js';
import type { KubeObject, StoredObject } from '../machinery/meta/object.js';
import { StatusError, isStatusError } from '../machinery/status.js';
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

async function failure(promise: Promise<unknown>): Promise<{ code: number; reason: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isStatusError(error)) throw new Error(`expected a Status error, got ${String(error)}`);
  const { code = 0, reason = '', message = '' } = error.status;
  return { code, reason, message };
}

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

  describe('create', () => {
    it('sets system metadata, drops status, and stores what validation passed', async () => {
      const created = await store.create(
        'ns',
        pipeline('c1', { metadata: { uid: 'forged', resourceVersion: '9' }, status: { phase: 'Running' } }),
        allow,
        live,
      );
      expect(created.metadata).toMatchObject({ name: 'c1', namespace: 'ns', generation: 1 });
      expect(created.metadata.uid).not.toBe('forged');
      expect(created.metadata.resourceVersion).not.toBe('9');
      expect(created).not.toHaveProperty('status');
    });

    it.each<[string, KubeObject, string, number, string]>([
      ['a namespace other than the request', pipeline('c2', { metadata: { namespace: 'other' } }), 'ns', 400, 'BadRequest'],
      ['a negative replica count', pipeline('c3', { spec: { replicas: -1 } }), 'ns', 422, 'Invalid'],
      ['duplicate step names', pipeline('c4', { spec: { steps: [{ name: 'a' }, { name: 'a' }] } }), 'ns', 422, 'Invalid'],
      ['no name', { ...pipeline(''), metadata: {} }, 'ns', 422, 'Invalid'],
      ['an existing name', pipeline('c1'), 'ns', 409, 'AlreadyExists'],
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

    it('generates a name from generateName, and stores nothing on a dry run', async () => {
      const generated = await store.create('ns', { ...pipeline(''), metadata: { generateName: 'gen-' } }, allow, live);
      expect(generated.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
      const dryRun = await store.create('ns', pipeline('dry'), allow, dry);
      expect(dryRun.metadata.name).toBe('dry');
      expect(await failure(store.get({ namespace: 'ns', name: 'dry' }))).toMatchObject({ code: 404 });
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
      ['a changed uid', (c) => ({ ...c, metadata: { ...c.metadata, uid: 'other' } }), 422, 'Invalid'],
      ['an invalid spec', (c) => ({ ...c, spec: { replicas: 'many' } }), 422, 'Invalid'],
    ])('refuses %s', async (_, change, code, reason) => {
      expect(await failure(store.update({ namespace: 'ns', name: 'u1' }, (c) => change(c!), allow, allow, false, live))).toMatchObject({ code, reason });
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

    it('removes an object being deleted when an update takes its last finalizer', async () => {
      await store.create('ns', pipeline('held', { metadata: { finalizers: ['example.com/hold'] } }), allow, live);
      const marked = await store.delete({ namespace: 'ns', name: 'held' }, { dryRun: false });
      expect(marked.metadata.deletionTimestamp).toBeDefined();
      await store.update({ namespace: 'ns', name: 'held' }, (c) => ({ ...c!, metadata: { ...c!.metadata, finalizers: [] } }), allow, allow, false, live);
      expect(await failure(store.get({ namespace: 'ns', name: 'held' }))).toMatchObject({ code: 404 });
    });
  });

  describe('delete', () => {
    it.each<[string, Record<string, unknown>, number]>([
      ['a stale uid precondition', { preconditions: { uid: 'other' } }, 409],
      ['a stale resourceVersion precondition', { preconditions: { resourceVersion: '1' } }, 409],
    ])('refuses %s', async (_, options, code) => {
      await store.create('ns', pipeline('d1'), allow, live).catch(() => undefined);
      expect(await failure(store.delete({ namespace: 'ns', name: 'd1' }, { dryRun: false, ...options }))).toMatchObject({ code });
    });

    it('marks instead of removing while finalizers hold the object, as the propagation policy says', async () => {
      await store.create('ns', pipeline('d2'), allow, live);
      const marked = await store.delete({ namespace: 'ns', name: 'd2' }, { dryRun: false, propagationPolicy: 'Foreground' });
      expect(marked.metadata.finalizers).toEqual(['foregroundDeletion']);
      expect(marked.metadata.deletionGracePeriodSeconds).toBe(0);
      const dryRun = await store.delete({ namespace: 'ns', name: 'd1' }, { dryRun: true });
      expect(dryRun.metadata.name).toBe('d1');
      expect((await store.get({ namespace: 'ns', name: 'd1' })).metadata.name).toBe('d1');
    });
  });
});
