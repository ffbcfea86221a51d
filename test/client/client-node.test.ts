/**
 * The real `@kubernetes/client-node` 2.x against a real Cairn server (TLS, PGlite),
 * through the kubeconfig the server writes: lists with selectors and pages, the Watch
 * class, and informers (ListWatch) whose caches must converge on the server's state.
 */
import {
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  ListWatch,
  makeInformer,
  Watch,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordInformerEvents } from '../support/informer-events.js';
import { waitFor } from '../support/kubectl.js';
import { pipeline, startTestServer, type TestServer } from '../support/test-server.js';

const group = 'cairn.dev';
const version = 'v1';
const pipelinesPath = '/apis/cairn.dev/v1/namespaces/default/pipelines';

/** A listed object, as the tests read it. */
type Listed = KubernetesObject & { spec?: { replicas?: number } };
/** One page of a list, as CustomObjectsApi returns it (untyped JSON). */
type Page = KubernetesListObject<Listed> & { metadata?: { continue?: string } };

const nameOf = (object: KubernetesObject): string => object.metadata?.name ?? '';
const namesOf = (page: { items: readonly KubernetesObject[] }): string[] => page.items.map(nameOf).sort();

/**
 * Lists every page, following `continue` while the server sends one, and returns the
 * names in the order received. A server may ignore `limit` (one page, no `continue`); a
 * page that carries `continue` must respect `limit`.
 */
async function listAllPages(limit: number, fetchPage: (continueToken: string | undefined) => Promise<Page>): Promise<string[]> {
  const names: string[] = [];
  let continueToken: string | undefined;
  for (let pages = 1; ; pages++) {
    const page = await fetchPage(continueToken);
    continueToken = page.metadata?.continue || undefined;
    names.push(...page.items.map(nameOf));
    if (continueToken === undefined) return names;
    expect(page.items.length, `page ${pages}`).toBeLessThanOrEqual(limit);
    expect(pages, 'the pages never end').toBeLessThan(20);
  }
}

/** A Watch whose streams the server ends after a second, as its request timeout eventually does. */
class ShortWatch extends Watch {
  override watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: any, watchObj?: any) => void,
    done: (err: any) => void,
  ): Promise<AbortController> {
    return super.watch(path, { ...queryParams, timeoutSeconds: 1 }, callback, done);
  }
}

describe('@kubernetes/client-node against Cairn', () => {
  let server: TestServer | undefined;
  let kc: KubeConfig;
  let customObjects: CustomObjectsApi;

  /** The running server; fails the calling test when beforeAll could not start it. */
  const srv = (): TestServer => {
    if (server === undefined) throw new Error('the test server did not start');
    return server;
  };

  const createPipeline = async (name: string, labels: Record<string, string>, namespace = 'default') => {
    const res = await srv().request('POST', `/apis/cairn.dev/v1/namespaces/${namespace}/pipelines`, { body: pipeline(name, {}, labels) });
    expect(res.status, res.text).toBe(201);
  };
  const patchReplicas = async (name: string, replicas: number) => {
    const res = await srv().request('PATCH', `${pipelinesPath}/${name}`, {
      body: { spec: { replicas } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(res.status, res.text).toBe(200);
  };
  const deletePipeline = async (name: string) => {
    const res = await srv().request('DELETE', `${pipelinesPath}/${name}`);
    expect(res.status, res.text).toBe(200);
  };
  /** The names the server lists for `labelSelector` in the default namespace. */
  const serverNames = async (labelSelector: string) => {
    const res = await srv().request('GET', `${pipelinesPath}?labelSelector=${encodeURIComponent(labelSelector)}`);
    return namesOf(res.json);
  };
  const listPipelines = (labelSelector: string) => () =>
    customObjects.listNamespacedCustomObject({ group, version, namespace: 'default', plural: 'pipelines', labelSelector }) as Promise<Page>;

  beforeAll(async () => {
    server = await startTestServer({ backend: 'pglite' });
    kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfigPath);
    customObjects = kc.makeApiClient(CustomObjectsApi);
  });

  afterAll(async () => {
    await server?.destroy();
  });

  describe('lists', () => {
    const listed = ['list-0', 'list-1', 'list-2', 'list-3', 'list-4'];

    beforeAll(async () => {
      for (const [i, name] of listed.entries()) await createPipeline(name, { suite: 'list', tier: i < 3 ? 'a' : 'b' });
      await createPipeline('list-elsewhere', { suite: 'list', tier: 'a' }, 'other');
      const runnerClass = await srv().request('POST', '/apis/cairn.dev/v1/runnerclasses', {
        body: { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name: 'client-node' }, spec: { image: 'alpine:3.20', maxReplicas: 4 } },
      });
      expect(runnerClass.status, runnerClass.text).toBe(201);
    });

    it('filters listNamespacedCustomObject by label and field selectors', async () => {
      const tierA = await customObjects.listNamespacedCustomObject({
        group,
        version,
        namespace: 'default',
        plural: 'pipelines',
        labelSelector: 'suite=list,tier=a',
      });
      expect(tierA).toMatchObject({ apiVersion: 'cairn.dev/v1', kind: 'PipelineList' });
      expect(namesOf(tierA)).toEqual(['list-0', 'list-1', 'list-2']);

      const notA = await customObjects.listNamespacedCustomObject({
        group,
        version,
        namespace: 'default',
        plural: 'pipelines',
        labelSelector: 'suite=list,tier!=a',
      });
      expect(namesOf(notA)).toEqual(['list-3', 'list-4']);

      const one = await customObjects.listNamespacedCustomObject({
        group,
        version,
        namespace: 'default',
        plural: 'pipelines',
        fieldSelector: 'metadata.name=list-3',
      });
      expect(namesOf(one)).toEqual(['list-3']);
      expect(one.items[0]).toMatchObject({
        apiVersion: 'cairn.dev/v1',
        kind: 'Pipeline',
        metadata: { namespace: 'default', labels: { suite: 'list', tier: 'b' } },
      });
    });

    it('pages a limited list by following continue', async () => {
      const names = await listAllPages(2, (continueToken) =>
        customObjects.listNamespacedCustomObject({
          group,
          version,
          namespace: 'default',
          plural: 'pipelines',
          labelSelector: 'suite=list',
          limit: 2,
          _continue: continueToken,
        }),
      );
      expect(names).toHaveLength(new Set(names).size);
      expect([...names].sort()).toEqual(listed);
    });

    it('lists across namespaces and cluster-scoped kinds with listClusterCustomObject', async () => {
      const all = await customObjects.listClusterCustomObject({ group, version, plural: 'pipelines', labelSelector: 'suite=list' });
      expect(all.items.map((o: KubernetesObject) => `${o.metadata?.namespace}/${nameOf(o)}`).sort()).toEqual([
        ...listed.map((name) => `default/${name}`),
        'other/list-elsewhere',
      ]);

      const paged = await listAllPages(4, (continueToken) =>
        customObjects.listClusterCustomObject({ group, version, plural: 'pipelines', labelSelector: 'suite=list', limit: 4, _continue: continueToken }),
      );
      expect(paged).toHaveLength(6);
      expect(new Set(paged).size).toBe(6);

      const classes = await customObjects.listClusterCustomObject({ group, version, plural: 'runnerclasses', fieldSelector: 'metadata.name=client-node' });
      expect(classes.kind).toBe('RunnerClassList');
      expect(classes.items).toEqual([expect.objectContaining({ kind: 'RunnerClass', metadata: expect.objectContaining({ name: 'client-node' }) })]);
      expect(classes.items[0].metadata.namespace).toBeUndefined();
    });

    it('lists with KubernetesObjectApi.list, which discovers the resource first', async () => {
      const objects = KubernetesObjectApi.makeApiClient(kc);
      const tierB = await objects.list<Listed>('cairn.dev/v1', 'Pipeline', 'default', undefined, undefined, undefined, undefined, 'suite=list,tier=b');
      expect(namesOf(tierB)).toEqual(['list-3', 'list-4']);
      expect(tierB.items.every((o) => o.kind === 'Pipeline' && o.apiVersion === 'cairn.dev/v1')).toBe(true);

      const byName = await objects.list<Listed>('cairn.dev/v1', 'Pipeline', 'default', undefined, undefined, undefined, 'metadata.name=list-1');
      expect(namesOf(byName)).toEqual(['list-1']);

      const classes = await objects.list('cairn.dev/v1', 'RunnerClass');
      expect(classes.items.map(nameOf)).toContain('client-node');
    });
  });

  it('watches with Watch: ADDED for existing objects, then MODIFIED and DELETED, until abort()', async () => {
    await createPipeline('watch-0', { suite: 'watch' });
    await createPipeline('watch-1', { suite: 'watch' });
    const events: { type: string; name: string; replicas?: number }[] = [];
    const doneWith: unknown[] = [];
    const objectEvents = () => events.filter((e) => e.type !== 'BOOKMARK');
    const shown = () => `events: ${JSON.stringify(events)}, done: ${doneWith.map(String).join('; ')}`;

    const controller = await new Watch(kc).watch(
      pipelinesPath,
      { resourceVersion: '0', allowWatchBookmarks: true, labelSelector: 'suite=watch' },
      (type, object: Listed) => events.push({ type, name: nameOf(object), replicas: object.spec?.replicas }),
      (err) => doneWith.push(err),
    );
    try {
      await waitFor(() => objectEvents().length >= 2 || doneWith.length > 0, 10_000, shown);
      expect(
        objectEvents()
          .map((e) => `${e.type} ${e.name}`)
          .sort(),
      ).toEqual(['ADDED watch-0', 'ADDED watch-1']);

      await patchReplicas('watch-0', 5);
      await waitFor(() => objectEvents().length >= 3 || doneWith.length > 0, 10_000, shown);
      expect(objectEvents()[2]).toEqual({ type: 'MODIFIED', name: 'watch-0', replicas: 5 });

      await deletePipeline('watch-1');
      await waitFor(() => objectEvents().length >= 4 || doneWith.length > 0, 10_000, shown);
      expect(objectEvents()[3]).toMatchObject({ type: 'DELETED', name: 'watch-1' });
      expect(doneWith).toEqual([]);
    } finally {
      controller.abort();
    }
    await waitFor(() => doneWith.length > 0, 5_000, shown);
    expect(doneWith).toHaveLength(1);
    // abort() ends the stream with an AbortError, or as a plain close.
    if (doneWith[0]) expect((doneWith[0] as Error).name).toBe('AbortError');
  });

  it('keeps a makeInformer cache in step with adds, updates and deletes', async () => {
    await createPipeline('informer-0', { suite: 'informer' });
    const informer = makeInformer(kc, pipelinesPath, listPipelines('suite=informer'), 'suite=informer');
    const { seen, errors, until } = recordInformerEvents(informer);

    await informer.start();
    try {
      await until('add informer-0');
      await createPipeline('informer-1', { suite: 'informer' });
      await until('add informer-1');
      await patchReplicas('informer-0', 7);
      await until('update informer-0');
      await deletePipeline('informer-1');
      await until('delete informer-1');

      expect(errors).toEqual([]);
      expect(seen).toEqual(['add informer-0', 'add informer-1', 'update informer-0', 'delete informer-1']);
      const expected = await serverNames('suite=informer');
      expect(expected).toEqual(['informer-0']);
      expect(namesOf({ items: informer.list('default') })).toEqual(expected);
      expect(informer.get('informer-0', 'default')?.spec?.replicas).toBe(7);
    } finally {
      await informer.stop();
    }
  });

  it('resumes an informer from its last resourceVersion each time the server ends its watch', async () => {
    let lists = 0;
    const listFn = listPipelines('suite=recovery');
    const informer = new ListWatch<Listed>(pipelinesPath, new ShortWatch(kc), () => (lists++, listFn()), false, 'suite=recovery');
    const adds: string[] = [];
    const deletes: string[] = [];
    const errors: unknown[] = [];
    let connects = 0;
    informer.on('add', (o) => adds.push(nameOf(o)));
    informer.on('delete', (o) => deletes.push(nameOf(o)));
    informer.on('error', (err) => errors.push(err));
    informer.on('connect', () => connects++);
    const cached = () => namesOf({ items: informer.list('default') });
    const shown = () =>
      `connects: ${connects}, lists: ${lists}, cache: ${cached().join(',')}, adds: ${adds.join(',')}, deletes: ${deletes.join(',')}, errors: ${errors.map(String).join('; ')}`;

    await informer.start();
    try {
      // Writes spread over several one-second watches, some landing between two of them.
      for (const name of ['recovery-0', 'recovery-1', 'recovery-2', 'recovery-3']) {
        await createPipeline(name, { suite: 'recovery' });
        await sleep(700);
      }
      await deletePipeline('recovery-0');
      const expected = ['recovery-1', 'recovery-2', 'recovery-3'];
      await waitFor(() => (connects >= 3 && cached().join() === expected.join()) || errors.length > 0, 15_000, shown);

      expect(errors).toEqual([]);
      expect(await serverNames('suite=recovery')).toEqual(expected);
      expect([...adds].sort(), shown()).toEqual(['recovery-0', 'recovery-1', 'recovery-2', 'recovery-3']);
      expect(deletes, shown()).toEqual(['recovery-0']);
      // Every ended watch was resumed from the last resourceVersion, never by listing again.
      expect(lists, shown()).toBe(1);
    } finally {
      await informer.stop();
    }
  });
});
