/**
 * The garbage collector against a real server, as a client over HTTPS, with kube's
 * semantics: background, foreground and orphan cascades with and without dependents
 * (an object with none finished within a second), `blockOwnerDeletion`, and
 * ownerReferences across scopes — a cluster-scoped owner of namespaced dependents,
 * dangling references, a namespaced owner in another namespace or of a cluster-scoped
 * dependent treated as absent, and owners of kinds Cairn does not serve left alone.
 * Each cascade performed is logged and counted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCairnClient, loadKubeconfig, type CairnClient } from '../../src/client/index.js';
import { startGarbageCollector, type RunningGarbageCollector } from '../../src/controller/garbage-collector/garbage-collector.js';
import { eventually } from '../support/eventually.js';
import { pipeline, runnerClass, sharedTestServer } from '../support/test-server.js';

const runnerClasses = '/apis/cairn.dev/v1/runnerclasses';
const pipelines = (namespace = 'default') => `/apis/cairn.dev/v1/namespaces/${namespace}/pipelines`;
const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

/** An ownerReference to `owner`, as a created object's JSON gives it. */
const referenceTo = (owner: any, extra: Record<string, unknown> = {}) => ({
  apiVersion: owner.apiVersion,
  kind: owner.kind,
  name: owner.metadata.name,
  uid: owner.metadata.uid,
  ...extra,
});

describe('the garbage collector', () => {
  const server = sharedTestServer({ backend: 'pglite' });
  let client: CairnClient;
  let collector: RunningGarbageCollector;
  const logged: { details: any; message: string }[] = [];
  const counted = { deleted: [] as string[], orphaned: [] as string[] };

  beforeAll(async () => {
    client = createCairnClient(await loadKubeconfig(server().kubeconfigPath));
    collector = startGarbageCollector(client, {
      watchTimeoutSeconds: 2,
      logger: { info: (details, message) => logged.push({ details, message }), warn: (details, message) => logged.push({ details, message }) },
      counters: { deleted: (r) => counted.deleted.push(r), orphaned: (r) => counted.orphaned.push(r) },
    });
    await collector.synced;
  });
  afterAll(async () => {
    await collector?.stop();
    client?.close();
  });

  async function create(path: string, body: any, metadata: Record<string, unknown> = {}): Promise<any> {
    const created = await server().request('POST', path, { body: { ...body, metadata: { ...body.metadata, ...metadata } } });
    expect(created.status, created.text).toBe(201);
    return created.json;
  }
  const get = (path: string) => server().request('GET', path);
  const gone = (path: string, ms = 10_000) => eventually(`${path} deleted`, ms, async () => (await get(path)).status === 404);
  /** Waits for a log line with `message` and `details` among its details: the collector logs once a write's response is in, maybe after the test saw its effect. */
  const wasLogged = (message: string, details: Record<string, unknown>) =>
    eventually(`logged "${message}" with ${JSON.stringify(details)}`, 5000, async () =>
      logged.some((l) => l.message === message && Object.entries(details).every(([k, v]) => JSON.stringify(l.details[k]) === JSON.stringify(v))),
    );
  async function remove(path: string, propagationPolicy?: string): Promise<any> {
    const deleted = await server().request('DELETE', propagationPolicy ? `${path}?propagationPolicy=${propagationPolicy}` : path);
    expect(deleted.status, deleted.text).toBeLessThan(300);
    return deleted.json;
  }

  it('background: the owner goes at once, then the dependents whose every owner is gone; one with an owner left only loses the reference', async () => {
    const owner = await create(runnerClasses, runnerClass('bg-owner'));
    const other = await create(runnerClasses, runnerClass('bg-other'));
    await create(pipelines(), pipeline('bg-only'), { ownerReferences: [referenceTo(owner)] });
    await create(pipelines(), pipeline('bg-shared'), { ownerReferences: [referenceTo(owner), referenceTo(other)] });
    // Its class is the owner that goes: admission lets an update keep a class since deleted, so the reference can be removed.
    await create(pipelines(), pipeline('bg-classed', { runnerClassName: 'bg-owner' }), { ownerReferences: [referenceTo(owner), referenceTo(other)] });
    await remove(`${runnerClasses}/bg-owner`);
    expect((await get(`${runnerClasses}/bg-owner`)).status).toBe(404);
    await gone(`${pipelines()}/bg-only`);
    await eventually(
      'bg-shared loses its reference to bg-owner',
      10_000,
      async () => (await get(`${pipelines()}/bg-shared`)).json.metadata.ownerReferences?.length === 1,
    );
    expect((await get(`${pipelines()}/bg-shared`)).json.metadata.ownerReferences).toEqual([referenceTo(other)]);
    await eventually(
      'bg-classed loses its reference to bg-owner, its RunnerClass',
      10_000,
      async () => (await get(`${pipelines()}/bg-classed`)).json.metadata.ownerReferences?.length === 1,
    );
    // The collector counts and logs once the delete's response is in, which may be after the object is gone.
    await eventually('the deletion is counted', 5000, async () => counted.deleted.includes('pipelines'));
    await wasLogged('garbage collector deleted a dependent whose owners are gone or waiting for it', {
      kind: 'Pipeline',
      namespace: 'default',
      name: 'bg-only',
      owners: ['RunnerClass/bg-owner'],
      cascade: 'background',
    });
  });

  it('foreground: dependents go first, a blocking one holds the owner until it is gone, then the owner goes', async () => {
    const owner = await create(runnerClasses, runnerClass('fg-owner'));
    // The blocking dependent's own finalizer keeps it, being deleted, for as long as the test wants.
    await create(pipelines(), pipeline('fg-blocking'), { ownerReferences: [referenceTo(owner, { blockOwnerDeletion: true })], finalizers: ['cairn.dev/hold'] });
    await create(pipelines(), pipeline('fg-free'), { ownerReferences: [referenceTo(owner)] });
    const marked = await remove(`${runnerClasses}/fg-owner`, 'Foreground');
    expect(marked.metadata.finalizers).toEqual(['foregroundDeletion']);
    await gone(`${pipelines()}/fg-free`);
    await wasLogged('garbage collector deleted a dependent whose owners are gone or waiting for it', {
      name: 'fg-free',
      owners: ['RunnerClass/fg-owner'],
      cascade: 'foreground',
    });
    await eventually('the blocking dependent is being deleted', 10_000, async () =>
      Boolean((await get(`${pipelines()}/fg-blocking`)).json.metadata.deletionTimestamp),
    );
    // While the blocking dependent exists, its owner waits.
    const waiting = await get(`${runnerClasses}/fg-owner`);
    expect(waiting.json.metadata).toMatchObject({ finalizers: ['foregroundDeletion'] });
    expect(waiting.json.metadata.deletionTimestamp).toBeDefined();
    await server().request('PATCH', `${pipelines()}/fg-blocking`, { body: { metadata: { finalizers: null } }, headers: mergePatch });
    await gone(`${pipelines()}/fg-blocking`);
    await gone(`${runnerClasses}/fg-owner`);
    await wasLogged('garbage collector finished a foreground deletion', { kind: 'RunnerClass', name: 'fg-owner', cascade: 'foreground' });
  });

  it('foreground through two levels: a dependent with dependents of its own is deleted in foreground too', async () => {
    const owner = await create(runnerClasses, runnerClass('fg2-owner'));
    const middle = await create(runnerClasses, runnerClass('fg2-middle'), { ownerReferences: [referenceTo(owner, { blockOwnerDeletion: true })] });
    await create(pipelines(), pipeline('fg2-leaf'), { ownerReferences: [referenceTo(middle, { blockOwnerDeletion: true })] });
    await remove(`${runnerClasses}/fg2-owner`, 'Foreground');
    await gone(`${pipelines()}/fg2-leaf`);
    await gone(`${runnerClasses}/fg2-middle`);
    await gone(`${runnerClasses}/fg2-owner`);
  });

  it('orphan: each dependent loses its reference to the owner and stays, then the owner goes', async () => {
    const owner = await create(runnerClasses, runnerClass('or-owner'));
    const other = await create(runnerClasses, runnerClass('or-other'));
    await create(pipelines(), pipeline('or-only'), { ownerReferences: [referenceTo(owner, { blockOwnerDeletion: true })] });
    await create(pipelines(), pipeline('or-shared'), { ownerReferences: [referenceTo(other), referenceTo(owner)] });
    const marked = await remove(`${runnerClasses}/or-owner`, 'Orphan');
    expect(marked.metadata.finalizers).toEqual(['orphan']);
    await gone(`${runnerClasses}/or-owner`);
    const only = await get(`${pipelines()}/or-only`);
    expect(only.status).toBe(200);
    expect(only.json.metadata.ownerReferences).toBeUndefined();
    expect((await get(`${pipelines()}/or-shared`)).json.metadata.ownerReferences).toEqual([referenceTo(other)]);
    await wasLogged('garbage collector finished an orphaning deletion', { kind: 'RunnerClass', name: 'or-owner', cascade: 'orphan', orphaned: 2 });
    expect(counted.orphaned.filter((r) => r === 'pipelines').length).toBeGreaterThanOrEqual(2);
  });

  it.each(['Foreground', 'Orphan', 'Background'])('finishes a %s deletion of an object with no dependents within a second', async (policy) => {
    const name = `alone-${policy.toLowerCase()}`;
    await create(pipelines(), pipeline(name));
    await remove(`${pipelines()}/${name}`, policy);
    await gone(`${pipelines()}/${name}`, 1000);
  });

  it('deletes a dependent whose owner never existed (a dangling reference)', async () => {
    await create(pipelines(), pipeline('dangling'), {
      ownerReferences: [{ apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', name: 'never-was', uid: '00000000-0000-4000-8000-000000000001' }],
    });
    await gone(`${pipelines()}/dangling`);
  });

  it('finds a cluster-scoped owner by group and kind, whatever version the reference names', async () => {
    const owner = await create(runnerClasses, runnerClass('old-version-owner'));
    await create(pipelines(), pipeline('old-version-ref'), { ownerReferences: [{ ...referenceTo(owner), apiVersion: 'cairn.dev/v1alpha1' }] });
    await create(pipelines(), pipeline('old-version-dangling'), {
      ownerReferences: [{ ...referenceTo(owner), apiVersion: 'cairn.dev/v1alpha1', uid: '00000000-0000-4000-8000-000000000002' }],
    });
    // The one naming the owner's uid stays; the other, same name but another uid, is dangling.
    await gone(`${pipelines()}/old-version-dangling`);
    expect((await get(`${pipelines()}/old-version-ref`)).status).toBe(200);
    await remove(`${runnerClasses}/old-version-owner`);
    await gone(`${pipelines()}/old-version-ref`);
  });

  it('treats a namespaced owner in another namespace as absent', async () => {
    const owner = await create(pipelines('team-a'), pipeline('ns-owner'));
    await create(pipelines('team-b'), pipeline('ns-dependent'), { ownerReferences: [referenceTo(owner)] });
    const sameNamespace = await create(pipelines('team-a'), pipeline('ns-sibling'), { ownerReferences: [referenceTo(owner)] });
    await gone(`${pipelines('team-b')}/ns-dependent`);
    expect((await get(`${pipelines('team-a')}/ns-sibling`)).json.metadata.uid).toBe(sameNamespace.metadata.uid);
    await remove(`${pipelines('team-a')}/ns-owner`);
    await gone(`${pipelines('team-a')}/ns-sibling`);
  });

  it('treats a namespaced owner of a cluster-scoped dependent as absent', async () => {
    const owner = await create(pipelines(), pipeline('scope-owner'));
    await create(runnerClasses, runnerClass('scope-dependent'), { ownerReferences: [referenceTo(owner)] });
    await gone(`${runnerClasses}/scope-dependent`);
    expect((await get(`${pipelines()}/scope-owner`)).status).toBe(200);
  });

  it('leaves alone a reference to a kind Cairn does not serve, and removes only the dangling one beside it', async () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: '00000000-0000-4000-8000-000000000003' };
    const dangling = { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', name: 'gone', uid: '00000000-0000-4000-8000-000000000004' };
    await create(pipelines(), pipeline('unserved-owner'), { ownerReferences: [deployment, dangling] });
    await eventually(
      'the dangling reference is removed',
      10_000,
      async () => (await get(`${pipelines()}/unserved-owner`)).json.metadata.ownerReferences?.length === 1,
    );
    const kept = await get(`${pipelines()}/unserved-owner`);
    expect(kept.json.metadata.ownerReferences).toEqual([deployment]);
    expect(kept.json.metadata.deletionTimestamp).toBeUndefined();
  });

  it('counts its catch-up passes and the depth of its queues', async () => {
    expect(collector.catchUps()).toBeGreaterThan(0);
    await eventually('the queues drain', 10_000, async () => {
      const depths = collector.queueDepths();
      return depths.attemptToDelete === 0 && depths.attemptToOrphan === 0;
    });
  });

  it('lists again at once when a watch cannot resume (410 Gone), and runs a catch-up pass for what it may have missed', async () => {
    const expiring = createCairnClient(await loadKubeconfig(server().kubeconfigPath));
    let expire = false;
    expiring.api.use({
      async onResponse({ request, response }) {
        if (!expire || new URL(request.url).searchParams.get('watch') !== 'true' || !new URL(request.url).pathname.endsWith('/pipelines')) return undefined;
        // The next watch of Pipelines to open (each lasts a second) finds its resourceVersion gone, once.
        expire = false;
        await response.body?.cancel();
        return Response.json(
          { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version' },
          { status: 410 },
        );
      },
    });
    const warnings: string[] = [];
    // A relist after a minute's delay would time the test out.
    const collecting = startGarbageCollector(expiring, {
      watchTimeoutSeconds: 1,
      retryDelayMs: 60_000,
      logger: { info: () => undefined, warn: (_d, message) => warnings.push(message) },
    });
    try {
      await collecting.synced;
      expect(collecting.catchUps()).toBe(1);
      expire = true;
      await eventually('a catch-up pass after the relist', 10_000, async () => collecting.catchUps() === 2);
      expect(expire).toBe(false);
      // 410 is routine: nothing is logged.
      expect(warnings).toEqual([]);
    } finally {
      await collecting.stop();
      expiring.close();
    }
  });
});

describe('the garbage collector’s lists, in pages of two', () => {
  const server = sharedTestServer({ backend: 'pglite' });

  it('reads every object of a collection larger than a page before it is synced, and collects from what it read', async () => {
    const owner = (await server().request('POST', runnerClasses, { body: runnerClass('paged-owner') })).json;
    const dangling = { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', name: 'paged-gone', uid: '00000000-0000-4000-8000-000000000005' };
    // Seven Pipelines, four pages: the last, whose only owner never existed, is in the last page.
    for (let n = 0; n < 7; n++) {
      const references = n === 6 ? [dangling] : [referenceTo(owner)];
      const created = await server().request('POST', pipelines('paged'), {
        body: { ...pipeline(`paged-${n}`), metadata: { name: `paged-${n}`, ownerReferences: references } },
      });
      expect(created.status, created.text).toBe(201);
    }
    const client = createCairnClient(await loadKubeconfig(server().kubeconfigPath));
    const collector = startGarbageCollector(client, { listPageSize: 2, watchTimeoutSeconds: 2 });
    try {
      await collector.synced;
      // The catch-up at start read every page of the owned objects.
      expect(collector.catchUps()).toBe(1);
      await eventually(
        'paged-6, owned by nothing that exists, is collected',
        10_000,
        async () => (await server().request('GET', `${pipelines('paged')}/paged-6`)).status === 404,
      );
      expect((await server().request('GET', `${pipelines('paged')}/paged-0`)).status).toBe(200);
    } finally {
      await collector.stop();
      client.close();
    }
  });

  it.each(['Background', 'Foreground', 'Orphan'])(
    'finishes a %s cascade over more dependents than a page, reading them page by page by their owner’s uid',
    async (policy) => {
      const name = `paged-${policy.toLowerCase()}`;
      const owner = (await server().request('POST', runnerClasses, { body: runnerClass(name) })).json;
      const namespace = `paged-${policy.toLowerCase()}`;
      // Seven dependents, four pages of two; another owner's dependent in between is left alone.
      for (let n = 0; n < 7; n++) {
        const created = await server().request('POST', pipelines(namespace), {
          body: { ...pipeline(`d-${n}`), metadata: { name: `d-${n}`, ownerReferences: [referenceTo(owner, { blockOwnerDeletion: true })] } },
        });
        expect(created.status, created.text).toBe(201);
      }
      const client = createCairnClient(await loadKubeconfig(server().kubeconfigPath));
      const collector = startGarbageCollector(client, { listPageSize: 2, watchTimeoutSeconds: 2 });
      try {
        await collector.synced;
        const deleted = await server().request('DELETE', `${runnerClasses}/${name}?propagationPolicy=${policy}`);
        expect(deleted.status, deleted.text).toBeLessThan(300);
        await eventually(`the owner ${name} is gone`, 20_000, async () => (await server().request('GET', `${runnerClasses}/${name}`)).status === 404);
        const left = (await server().request('GET', pipelines(namespace))).json.items as any[];
        if (policy === 'Orphan') {
          expect(left.map((p) => [p.metadata.name, p.metadata.ownerReferences])).toEqual(Array.from({ length: 7 }, (_, n) => [`d-${n}`, undefined]));
        } else {
          // In foreground the owner went last; in background the dependents follow it.
          await eventually('every dependent is gone', 20_000, async () => (await server().request('GET', pipelines(namespace))).json.items.length === 0);
          if (policy === 'Foreground') expect(left).toEqual([]);
        }
      } finally {
        await collector.stop();
        client.close();
      }
    },
  );
});
