/**
 * The typed client against a real server: the generated types of every version match
 * the committed OpenAPI documents, requests authenticate with the kubeconfig's client
 * certificate, failures are ApiErrors carrying the Status, every version is served with
 * its own types, patches of each type, status, scale and history helpers work, watches resume
 * across the server's timeouts and end in a ResourceExpiredError on 410 (on which
 * listAndWatch lists again), and the log streams line by line.
 */
import { readdir, readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClientTypes, generatedTypes } from '../../src/client/generate-types.js';
import {
  ApiError,
  createCairnClient,
  isConflict,
  isNotFound,
  loadKubeconfig,
  listAndWatch,
  listWatch,
  ResourceExpiredError,
  unwrap,
  type CairnClient,
  type ListAndWatchEvent,
  type Pipeline,
  type v1alpha1,
  type v1beta1,
  type WatchEvent,
} from '../../src/client/index.js';
import { eventually } from '../support/eventually.js';
import { pipeline, sharedTestServer, startTestServer } from '../support/test-server.js';

const root = new URL('../../', import.meta.url);
const pipelinesPath = '/apis/cairn.dev/v1/namespaces/{namespace}/pipelines';
const pipelinePath = '/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}';

/** A typed Pipeline manifest. */
const manifest = (name: string, spec: Pipeline['spec'] = {}): Pipeline => pipeline(name, spec);

/** Collects the events of a watch until `count` arrived. */
async function collect<T>(events: AsyncIterable<WatchEvent<T>>, count: number): Promise<WatchEvent<T>[]> {
  const seen: WatchEvent<T>[] = [];
  for await (const event of events) if (seen.push(event) === count) break;
  return seen;
}

/** Every value of an async iteration (Array.fromAsync, which ES2024's lib does not declare). */
async function all<T>(values: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const value of values) seen.push(value);
  return seen;
}

describe('the generated client types', () => {
  it.each(generatedTypes)('of $version match the committed OpenAPI document (run `npm run generate-client`)', async (generated) => {
    expect(await readFile(new URL(generated.file, root), 'utf8')).toBe(await generateClientTypes(root, generated));
  });

  it('exist for every version the committed OpenAPI documents describe, and nothing else is in generated/', async () => {
    const documents = (await readdir(new URL('openapi/v3/', root))).filter((file) => file.startsWith('apis__cairn.dev__'));
    expect(generatedTypes.map((g) => g.document.replace('openapi/v3/', '')).sort()).toEqual(documents.sort());
    const files = await readdir(new URL('src/client/generated/', root));
    expect(generatedTypes.map((g) => g.file.replace('src/client/generated/', '')).sort()).toEqual(files.sort());
  });
});

describe('the typed client', () => {
  const server = sharedTestServer({ backend: 'pglite' });
  let client: CairnClient;
  beforeAll(async () => {
    client = createCairnClient(await loadKubeconfig(server().kubeconfigPath));
  });
  afterAll(() => client?.close());
  const at = (name: string) => ({ params: { path: { namespace: 'default', name } } });

  it('creates, reads, lists and scales with the kubeconfig client certificate', async () => {
    const created = await unwrap(client.api.POST(pipelinesPath, { params: { path: { namespace: client.namespace } }, body: manifest('c-1', { replicas: 2 }) }));
    expect(created.metadata?.uid).toBeTruthy();
    expect((await unwrap(client.api.GET(pipelinePath, at('c-1')))).spec?.replicas).toBe(2);
    const list = await unwrap(client.api.GET(pipelinesPath, { params: { path: { namespace: 'default' }, query: { labelSelector: 'absent' } } }));
    expect(list.items).toEqual([]);
    const scale = await unwrap(
      client.api.PATCH(`${pipelinePath}/scale`, { ...at('c-1'), body: { spec: { replicas: 5 } }, headers: { 'Content-Type': 'application/merge-patch+json' } }),
    );
    expect(scale.spec?.replicas).toBe(5);
  });

  it('throws an ApiError carrying the Status', async () => {
    const missing = await unwrap(client.api.GET(pipelinePath, at('absent'))).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({ code: 404, reason: 'NotFound', status: { details: { name: 'absent', kind: 'pipelines' } } });
    expect(isNotFound(missing, 'absent')).toBe(true);
    expect(isNotFound(missing, 'other')).toBe(false);

    const created = await unwrap(client.api.POST(pipelinesPath, { params: { path: { namespace: 'default' } }, body: manifest('c-2') }));
    await unwrap(client.api.PUT(pipelinePath, { ...at('c-2'), body: { ...created, spec: { ...created.spec, replicas: 3 } } }));
    const stale = await unwrap(client.api.PUT(pipelinePath, { ...at('c-2'), body: { ...created, spec: { ...created.spec, replicas: 4 } } })).catch(
      (e: unknown) => e,
    );
    expect(isConflict(stale)).toBe(true);
  });

  it('sends a DELETE its DeleteOptions body whole: a stale uid precondition is refused, then a propagation policy is applied', async () => {
    await unwrap(client.api.POST(pipelinesPath, { params: { path: { namespace: 'default' } }, body: manifest('c-3') }));
    const stale = await unwrap(client.api.DELETE(pipelinePath, { ...at('c-3'), body: { preconditions: { uid: 'another' } } })).catch((e: unknown) => e);
    expect(isConflict(stale)).toBe(true);
    const marked = await unwrap(client.api.DELETE(pipelinePath, { ...at('c-3'), body: { propagationPolicy: 'Orphan' } }));
    expect(marked.metadata?.finalizers).toEqual(['orphan']);
  });

  it('lists in pages, following each continue token to the last page, with selectors', async () => {
    const namespace = { namespace: 'paged' };
    for (const name of ['p-1', 'p-2', 'p-3', 'p-4', 'p-5']) {
      const labels = { tier: name === 'p-5' ? 'other' : 'paged' };
      await unwrap(client.api.POST(pipelinesPath, { params: { path: namespace }, body: { ...manifest(name), metadata: { name, labels } } }));
    }
    const pages = await all(client.listPages(pipelinesPath, { path: namespace, limit: 2 }));
    expect(pages.map((page) => page.items.map((p) => p.metadata?.name))).toEqual([['p-1', 'p-2'], ['p-3', 'p-4'], ['p-5']]);
    expect(pages.map((page) => page.metadata?.continue)).toEqual([expect.any(String), expect.any(String), undefined]);
    // One snapshot: every page carries the first one's resourceVersion.
    expect(new Set(pages.map((page) => page.metadata?.resourceVersion)).size).toBe(1);

    const selected = await all(client.listPages('/apis/cairn.dev/v1/pipelines', { limit: 3, labelSelector: 'tier=paged' }));
    expect(selected.flatMap((page) => page.items.map((p) => p.metadata?.name))).toEqual(['p-1', 'p-2', 'p-3', 'p-4']);

    const refused = await all(client.listPages('/apis/cairn.dev/v1/pipelines', { labelSelector: 'tier in (' })).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: 400 });
  });

  it('stops listing pages when its signal aborts', async () => {
    const stop = new AbortController();
    const pages = client.listPages(pipelinesPath, { path: { namespace: 'paged' }, limit: 1, signal: stop.signal });
    expect((await pages.next()).value?.items).toHaveLength(1);
    stop.abort();
    await expect(pages.next()).rejects.toThrow(/abort/i);
  });

  it('watches from a resourceVersion and resumes when the server ends the stream', async () => {
    const list = await unwrap(client.api.GET('/apis/cairn.dev/v1/pipelines'));
    const stop = new AbortController();
    const events = collect(
      client.watch('/apis/cairn.dev/v1/pipelines', { resourceVersion: list.metadata?.resourceVersion, timeoutSeconds: 1, signal: stop.signal }),
      3,
    );
    await unwrap(client.api.POST(pipelinesPath, { params: { path: { namespace: 'default' } }, body: manifest('w-1') }));
    // Past two stream timeouts: the watch reopened from the last resourceVersion it saw.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await unwrap(
      client.api.PATCH(pipelinePath, { ...at('w-1'), body: { spec: { replicas: 2 } }, headers: { 'Content-Type': 'application/merge-patch+json' } }),
    );
    await unwrap(client.api.DELETE(pipelinePath, at('w-1')));
    expect((await events).map((e) => `${e.type} ${e.object.metadata?.name} ${e.object.spec?.replicas}`)).toEqual([
      'ADDED w-1 1',
      'MODIFIED w-1 2',
      'DELETED w-1 2',
    ]);
    stop.abort();
  });

  it('ends a watch without an error when its signal aborts', async () => {
    const stop = new AbortController();
    const watching = collect(client.watch('/apis/cairn.dev/v1/namespaces/{namespace}/pipelines', { path: { namespace: 'quiet' }, signal: stop.signal }), 1);
    setTimeout(() => stop.abort(), 200);
    expect(await watching).toEqual([]);
  });

  it('appends to and follows the log of a Pipeline', async () => {
    const name = { namespace: 'default', name: 'l-1' };
    await unwrap(client.api.POST(pipelinesPath, { params: { path: { namespace: 'default' } }, body: manifest('l-1') }));
    await client.appendLog(name, { step: 'fetch', lines: ['one', 'two'] });
    const all: string[] = [];
    for await (const line of client.readLog(name)) all.push(line);
    expect(all).toEqual(['one', 'two']);

    const stop = new AbortController();
    const followed: string[] = [];
    let sawTail!: () => void;
    const tailRead = new Promise<void>((resolve) => (sawTail = resolve));
    const following = (async () => {
      for await (const line of client.readLog(name, { follow: true, tailLines: 1, signal: stop.signal })) {
        const count = followed.push(line);
        if (count === 1) sawTail();
        if (count === 2) stop.abort();
      }
    })();
    // Appended only once the follow has read its tail, so 'three' cannot land before the tail is taken.
    await tailRead;
    await client.appendLog(name, { step: 'fetch', lines: ['three'] });
    await following;
    expect(followed).toEqual(['two', 'three']);

    const unknownStep = await client.appendLog(name, { step: 'nope', lines: ['x'] }).catch((e: unknown) => e);
    expect(unknownStep).toMatchObject({ code: 400 });
    const gone = await client.appendLog({ namespace: 'default', name: 'absent' }, { step: 'fetch', lines: ['x'] }).catch((e: unknown) => e);
    expect(isNotFound(gone, 'absent')).toBe(true);
  });

  // Every version, typed patches and subresources, on the same server.
  const named = (name: string) => ({ path: { namespace: 'default', name } });
  const v1Pipeline = '/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}';
  const v1alpha1Pipeline = '/apis/cairn.dev/v1alpha1/namespaces/{namespace}/pipelines/{name}';

  it('creates and reads in v1beta1 and v1alpha1, with their own types, the same object in every version', async () => {
    const beta: v1beta1.Pipeline = { ...manifest('vb-1', { replicas: 2, paused: true }), apiVersion: 'cairn.dev/v1beta1' };
    await unwrap(client.api.POST('/apis/cairn.dev/v1beta1/namespaces/{namespace}/pipelines', { params: { path: { namespace: 'default' } }, body: beta }));
    const alpha: v1alpha1.Pipeline = {
      apiVersion: 'cairn.dev/v1alpha1',
      kind: 'Pipeline',
      metadata: { name: 'va-1' },
      spec: { runnerClass: 'standard', parallelism: 3, steps: [{ name: 'fetch', image: 'alpine:3.20', run: 'echo hi' }] },
    };
    await unwrap(client.api.POST('/apis/cairn.dev/v1alpha1/namespaces/{namespace}/pipelines', { params: { path: { namespace: 'default' } }, body: alpha }));

    const asAlpha = await unwrap(client.api.GET(v1alpha1Pipeline, at('vb-1')));
    expect(asAlpha.spec?.parallelism).toBe(2);
    const asV1 = await unwrap(client.api.GET(v1Pipeline, at('va-1')));
    expect(asV1.spec).toMatchObject({ runnerClassName: 'standard', replicas: 3, steps: [{ command: ['sh', '-c', 'echo hi'] }] });
    const runnerClasses = await unwrap(client.api.GET('/apis/cairn.dev/v1beta1/runnerclasses'));
    expect(runnerClasses.items.map((rc) => rc.apiVersion)).toContain('cairn.dev/v1beta1');

    // Each version's fields are its own: v1alpha1 has no replicas, v1 no parallelism.
    // @ts-expect-error -- v1alpha1 has parallelism, not replicas
    const wrongField: v1alpha1.PipelineSpec = { replicas: 1 };
    void wrongField;
    const pages = await all(client.listPages('/apis/cairn.dev/v1alpha1/namespaces/{namespace}/pipelines', { path: { namespace: 'default' }, limit: 100 }));
    expect(pages.flatMap((page) => page.items.filter((p) => p.metadata?.name === 'va-1').map((p) => p.spec?.parallelism))).toEqual([3]);
  });

  it('patches with each patch type, sending its content type', async () => {
    await unwrap(
      client.api.POST(pipelinesPath, {
        params: { path: { namespace: 'default' } },
        body: manifest('pt-1', { steps: [{ name: 'fetch', image: 'alpine:3.20', env: [{ name: 'A', value: '1' }] }] }),
      }),
    );
    const json = await client.patch(v1Pipeline, {
      ...named('pt-1'),
      type: 'json',
      fieldManager: 'editor',
      body: [{ op: 'replace', path: '/spec/replicas', value: 4 }],
    });
    expect(json.metadata?.managedFields?.map((entry) => entry.manager)).toContain('editor');
    expect(json.spec?.replicas).toBe(4);
    const merged = await client.patch(v1Pipeline, {
      ...named('pt-1'),
      type: 'merge',
      body: { metadata: { labels: { tier: 'gold' } }, spec: { paused: true } },
    });
    expect([merged.metadata?.labels, merged.spec?.paused]).toEqual([{ tier: 'gold' }, true]);
    // Strategic: steps merge by name, so the step keeps its env; a merge patch would have replaced the list.
    const strategic = await client.patch(v1Pipeline, {
      ...named('pt-1'),
      type: 'strategic',
      body: { spec: { steps: [{ name: 'fetch', image: 'alpine:3.21' }] } },
    });
    expect(strategic.spec?.steps).toEqual([{ name: 'fetch', image: 'alpine:3.21', env: [{ name: 'A', value: '1' }] }]);
    const dryRun = await client.patch(v1Pipeline, { ...named('pt-1'), type: 'merge', dryRun: 'All', body: { spec: { replicas: 8 } } });
    expect(dryRun.spec?.replicas).toBe(8);
    expect((await unwrap(client.api.GET(v1Pipeline, at('pt-1')))).spec?.replicas).toBe(4);
    const removed = await client.patch(v1Pipeline, { ...named('pt-1'), type: 'merge', body: { metadata: { labels: { tier: null } } } });
    expect(removed.metadata?.labels).toBeUndefined();

    // Apply in v1alpha1, taking spec.replicas (its parallelism) over from the json patch's manager.
    const applied = await client.patch(v1alpha1Pipeline, {
      ...named('pt-1'),
      type: 'apply',
      fieldManager: 'tuner',
      force: true,
      body: { apiVersion: 'cairn.dev/v1alpha1', kind: 'Pipeline', metadata: { name: 'pt-1' }, spec: { parallelism: 6 } },
    });
    expect(applied.spec?.parallelism).toBe(6);
    expect(applied.metadata?.managedFields?.map((entry) => entry.manager)).toContain('tuner');
    const conflict = await client
      .patch(v1Pipeline, {
        ...named('pt-1'),
        type: 'apply',
        fieldManager: 'other',
        body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', spec: { replicas: 7 } },
      })
      .catch((error: unknown) => error);
    expect(conflict).toMatchObject({ code: 409, reason: 'Conflict' });
    const forced = await client.patch(v1Pipeline, {
      ...named('pt-1'),
      type: 'apply',
      fieldManager: 'other',
      force: true,
      body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', spec: { replicas: 7 } },
    });
    expect(forced.spec?.replicas).toBe(7);

    // Typed by the path (checked by tsc, never sent): apply needs a field manager, a Scale takes no apply patch, a merge patch only the object's fields.
    const typeChecks = () => [
      // @ts-expect-error -- apply without a fieldManager
      client.patch(v1Pipeline, { ...named('pt-1'), type: 'apply', body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline' } }),
      // @ts-expect-error -- a Scale takes no apply patch
      client.patch(`${v1Pipeline}/scale`, { ...named('pt-1'), type: 'apply', fieldManager: 'x', body: { apiVersion: 'autoscaling/v1', kind: 'Scale' } }),
      // @ts-expect-error -- v1 has no parallelism
      client.patch(v1Pipeline, { ...named('pt-1'), type: 'merge', body: { spec: { parallelism: 1 } } }),
    ];
    void typeChecks;
  });

  it('reads, replaces and patches status through the object path', async () => {
    await unwrap(client.api.POST(pipelinesPath, { params: { path: { namespace: 'default' } }, body: manifest('st-1') }));
    const read = await client.getStatus(v1Pipeline, named('st-1'));
    const replaced = await client.replaceStatus(v1Pipeline, {
      ...named('st-1'),
      body: { ...read, spec: { ...read.spec, replicas: 9 }, status: { phase: 'Failed' } },
    });
    // The status subresource writes status only.
    expect([replaced.status?.phase, replaced.spec?.replicas]).toEqual(['Failed', 1]);
    const patched = await client.patchStatus(v1alpha1Pipeline, { ...named('st-1'), type: 'merge', body: { status: { ready: true } } });
    expect(patched.status?.ready).toBe(true);
    const asV1 = await client.getStatus(v1Pipeline, named('st-1'));
    expect(asV1.status?.conditions).toEqual([expect.objectContaining({ type: 'Ready', status: 'True' })]);
    const rc = await client.patchStatus('/apis/cairn.dev/v1beta1/runnerclasses/{name}', {
      path: { name: 'standard' },
      type: 'merge',
      body: { status: { pipelines: 42 } },
    });
    expect(rc.status?.pipelines).toBe(42);
  });

  it('reads, replaces and sets a Pipeline scale in any version', async () => {
    await unwrap(client.api.POST(pipelinesPath, { params: { path: { namespace: 'default' } }, body: manifest('sc-1', { replicas: 2 }) }));
    const name = { namespace: 'default', name: 'sc-1' };
    const scale = await client.getScale(name);
    expect(scale).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 2 } });
    expect((await client.replaceScale(name, { ...scale, spec: { replicas: 3 } }, { version: 'v1beta1' })).spec?.replicas).toBe(3);
    expect((await client.scale(name, 5, { version: 'v1alpha1' })).spec?.replicas).toBe(5);
    expect((await unwrap(client.api.GET(v1alpha1Pipeline, at('sc-1')))).spec?.parallelism).toBe(5);
    const stale = await client.replaceScale(name, scale).catch((error: unknown) => error);
    expect(isConflict(stale)).toBe(true);
    expect(isNotFound(await client.scale({ namespace: 'default', name: 'absent' }, 1).catch((error: unknown) => error), 'absent')).toBe(true);
  });

  it('reads a history page by page and as one iteration, typed as the path version’s objects, narrowed by uid', async () => {
    const path = { namespace: 'default', name: 'h-1' };
    const first = await unwrap(client.api.POST(pipelinesPath, { params: { path: { namespace: 'default' } }, body: manifest('h-1', { replicas: 1 }) }));
    for (const replicas of [2, 3]) await client.patch(pipelinePath, { path, type: 'merge', fieldManager: 'tuner', body: { spec: { replicas } } });
    const page = await client.history(pipelinePath, { path, limit: 2 });
    expect(page.kind).toBe('RevisionList');
    expect(page.items.map((r) => [r.operation, r.fieldManager, r.user, r.object.spec?.replicas])).toEqual([
      ['patch', 'tuner', 'cairn-admin', 3],
      ['patch', 'tuner', 'cairn-admin', 2],
    ]);
    expect(page.metadata?.continue).toBeTruthy();
    const rest = await client.history(pipelinePath, { path, limit: 2, continue: page.metadata!.continue! });
    expect(rest.items.map((r) => r.operation)).toEqual(['create']);
    expect(rest.metadata?.continue).toBeUndefined();
    const alpha = await all(client.revisions(v1alpha1Pipeline, { path, limit: 1 }));
    expect(alpha.map((r) => [r.resourceVersion, r.object.apiVersion, r.object.spec?.parallelism])).toEqual(
      [...page.items, ...rest.items].map((r) => [r.resourceVersion, 'cairn.dev/v1alpha1', r.object.spec?.replicas]),
    );
    await unwrap(client.api.DELETE(pipelinePath, at('h-1')));
    await unwrap(client.api.POST(pipelinesPath, { params: { path: { namespace: 'default' } }, body: manifest('h-1') }));
    const incarnation = await all(client.revisions(pipelinePath, { path, uid: first.metadata!.uid! }));
    expect(incarnation.map((r) => r.operation)).toEqual(['delete', 'patch', 'patch', 'create']);
    const missing = await client.history(pipelinePath, { path: { namespace: 'default', name: 'never' } }).catch((error: unknown) => error);
    expect(isNotFound(missing, 'never')).toBe(true);
  });

  it('appends to and reads the log through any version', async () => {
    await unwrap(client.api.POST(pipelinesPath, { params: { path: { namespace: 'default' } }, body: manifest('lv-1') }));
    const name = { namespace: 'default', name: 'lv-1' };
    await client.appendLog(name, { step: 'fetch', lines: ['from alpha'] }, { version: 'v1alpha1' });
    await client.appendLog(name, { step: 'fetch', lines: ['from v1'] });
    expect(await all(client.readLog(name, { version: 'v1beta1' }))).toEqual(['from alpha', 'from v1']);
  });

  it('lists and watches as one iteration: the objects, SYNCED, then the changes', async () => {
    const namespace = { namespace: 'law' };
    await unwrap(client.api.POST(pipelinesPath, { params: { path: namespace }, body: manifest('law-1') }));
    const stop = new AbortController();
    const seen: string[] = [];
    const events = client.listAndWatch('/apis/cairn.dev/v1beta1/namespaces/{namespace}/pipelines', { path: namespace, limit: 1, signal: stop.signal });
    let synced!: () => void;
    const listed = new Promise<void>((resolve) => (synced = resolve));
    const reading = (async () => {
      for await (const event of events satisfies AsyncIterable<ListAndWatchEvent<v1beta1.Pipeline>>) {
        seen.push(event.type === 'SYNCED' ? 'SYNCED' : `${event.type} ${event.object.metadata?.name} ${event.object.spec?.replicas}`);
        if (event.type === 'SYNCED') synced();
        if (event.type === 'DELETED') stop.abort();
      }
    })();
    await listed;
    await unwrap(client.api.POST(pipelinesPath, { params: { path: namespace }, body: manifest('law-2') }));
    await client.scale({ namespace: 'law', name: 'law-2' }, 4);
    await unwrap(client.api.DELETE(pipelinePath, { params: { path: { namespace: 'law', name: 'law-2' } } }));
    await reading;
    expect(seen).toEqual(['ADDED law-1 1', 'SYNCED', 'ADDED law-2 1', 'MODIFIED law-2 4', 'DELETED law-2 4']);
  });
});

describe('a watch from an expired resourceVersion', () => {
  it('ends in a ResourceExpiredError, on which a caller lists again', async () => {
    const server = await startTestServer({ backend: 'pglite', args: ['--event-retention', '0', '--compaction-interval', '0.2'] });
    const client = createCairnClient(await loadKubeconfig(server.kubeconfigPath));
    try {
      const first = await unwrap(client.api.POST(pipelinesPath, { params: { path: { namespace: 'default' } }, body: manifest('e-1') }));
      await unwrap(client.api.POST(pipelinesPath, { params: { path: { namespace: 'default' } }, body: manifest('e-2') }));
      let error: unknown;
      for (let i = 0; i < 50 && !(error instanceof ResourceExpiredError); i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        const stop = new AbortController();
        setTimeout(() => stop.abort(), 500);
        error = await collect(client.watch('/apis/cairn.dev/v1/pipelines', { resourceVersion: first.metadata?.resourceVersion, signal: stop.signal }), 1).catch(
          (e: unknown) => e,
        );
      }
      expect(error).toBeInstanceOf(ResourceExpiredError);
      expect(error).toMatchObject({ code: 410, reason: 'Expired' });
    } finally {
      client.close();
      await server.destroy();
    }
  });

  it('makes listAndWatch list again and watch on, repeating nothing that did not change', async () => {
    const server = await startTestServer({ backend: 'pglite', args: ['--event-retention', '0', '--compaction-interval', '0.2'] });
    const client = createCairnClient(await loadKubeconfig(server.kubeconfigPath));
    const create = (namespace: string, name: string) => unwrap(client.api.POST(pipelinesPath, { params: { path: { namespace } }, body: manifest(name) }));
    try {
      await create('quiet', 'q-1');
      // The real list and watch, its lists counted: each stream ends after 1 s and reopens from the last resourceVersion it saw.
      const source = listWatch(client.api, pipelinesPath, { path: { namespace: 'quiet' }, watchTimeoutSeconds: 1 });
      let lists = 0;
      const counted: typeof source = {
        ...source,
        list(signal) {
          lists++;
          return source.list(signal);
        },
      };
      const stop = new AbortController();
      const errors: unknown[] = [];
      const seen: string[] = [];
      const reading = (async () => {
        for await (const event of listAndWatch(counted, { signal: stop.signal, onError: (error) => errors.push(error) })) {
          seen.push(event.type === 'SYNCED' ? 'SYNCED' : `${event.type} ${event.object.metadata?.name}`);
        }
      })();
      await eventually('the first list', 10_000, async () => seen.includes('SYNCED'));
      // Writes elsewhere move the resourceVersion on, and compaction drops the history the quiet watch would resume from: 410, a relist.
      let written = 0;
      await eventually(
        'a relist',
        20_000,
        async () => {
          await create('busy', `b-${written++}`);
          return lists >= 2;
        },
        200,
      );
      await create('quiet', 'q-2');
      await eventually('the change after the relist', 10_000, async () => seen.includes('ADDED q-2'));
      stop.abort();
      await reading;
      expect(seen).toEqual(['ADDED q-1', 'SYNCED', 'ADDED q-2']);
      expect(errors).toEqual([]);
    } finally {
      client.close();
      await server.destroy();
    }
  });
});
