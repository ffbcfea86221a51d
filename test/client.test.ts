/**
 * The typed client against a real server: the generated types match the committed
 * OpenAPI document, requests authenticate with the kubeconfig's client certificate,
 * failures are ApiErrors carrying the Status, watches resume across the server's
 * timeouts and end in a ResourceExpiredError on 410, and the log streams line by line.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClientTypes, generatedTypesPath } from '../src/client/generate-types.js';
import {
  ApiError,
  createCairnClient,
  isConflict,
  isNotFound,
  loadKubeconfig,
  ResourceExpiredError,
  unwrap,
  type CairnClient,
  type Pipeline,
  type WatchEvent,
} from '../src/client/index.js';
import { pipeline, sharedTestServer, startTestServer } from './support/test-server.js';

const root = new URL('../', import.meta.url);
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
  it('match the committed OpenAPI document (run `npm run generate-client`)', async () => {
    expect(await readFile(new URL(generatedTypesPath, root), 'utf8')).toBe(await generateClientTypes(root));
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
    expect((marked as Pipeline).metadata?.finalizers).toEqual(['orphan']);
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
});
