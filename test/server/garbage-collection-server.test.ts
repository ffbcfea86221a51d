/**
 * The garbage collector as a server runs it: on by default standalone
 * (`--garbage-collector=auto`), off with `off`; the work a stopped process left
 * (a `foregroundDeletion` finalizer) finished by the next one on the same database;
 * several replicas on one PostgreSQL with exactly one collecting at a time, another
 * taking over when it stops; and its metrics under kube's names where kube has them.
 */
import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { pipeline, runnerClass, sharedTestServer, startTestServer, type TestServer } from '../support/test-server.js';

const runnerClasses = '/apis/cairn.dev/v1/runnerclasses';
const pipelines = '/apis/cairn.dev/v1/namespaces/default/pipelines';

/** The value of the one sample of `name` with exactly `labels`; undefined without one. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const prefix = labels ? `${name}{${labels}} ` : `${name} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

const scrape = async (server: TestServer) => (await server.request('GET', '/metrics')).text;
const isLeader = async (server: TestServer) => sample(await scrape(server), 'cairn_garbage_collector_leader') === 1;
const gone = (server: TestServer, path: string) => eventually(`${path} deleted`, 15_000, async () => (await server.request('GET', path)).status === 404);

/** A RunnerClass and a Pipeline blocking its foreground deletion; returns their paths. */
async function ownerAndDependent(server: TestServer, name: string): Promise<{ owner: string; dependent: string }> {
  const owner = await server.request('POST', runnerClasses, { body: runnerClass(name) });
  expect(owner.status, owner.text).toBe(201);
  const reference = { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', name, uid: owner.json.metadata.uid, blockOwnerDeletion: true };
  const body = pipeline(`${name}-dependent`);
  const dependent = await server.request('POST', pipelines, { body: { ...body, metadata: { ...body.metadata, ownerReferences: [reference] } } });
  expect(dependent.status, dependent.text).toBe(201);
  return { owner: `${runnerClasses}/${name}`, dependent: `${pipelines}/${name}-dependent` };
}

/** Deletes in foreground, and checks the registry left the deletion to the collector. */
async function deleteInForeground(server: TestServer, path: string): Promise<void> {
  const marked = await server.request('DELETE', `${path}?propagationPolicy=Foreground`);
  expect(marked.json.metadata?.finalizers, marked.text).toEqual(['foregroundDeletion']);
}

describe('--garbage-collector=auto, standalone', () => {
  const server = sharedTestServer({ backend: 'pglite', garbageCollector: true });

  it('runs the collector: a foreground deletion finishes, dependents first', async () => {
    const { owner, dependent } = await ownerAndDependent(server(), 'auto-owner');
    await deleteInForeground(server(), owner);
    await gone(server(), dependent);
    await gone(server(), owner);
  });

  it("exposes the collector's metrics: queue depths under kube's names, catch-up passes, deletions, orphanings, and that it leads", async () => {
    const { owner } = await ownerAndDependent(server(), 'metrics-owner');
    expect((await server().request('DELETE', `${owner}?propagationPolicy=Orphan`)).status).toBe(200);
    await gone(server(), owner);
    let text = '';
    await eventually(
      'the orphaning counted',
      10_000,
      async () => sample((text = await scrape(server())), 'cairn_garbage_collector_orphanings_total', 'resource="pipelines"') === 1,
    );
    // The previous test's foreground cascade deleted a Pipeline.
    expect(sample(text, 'cairn_garbage_collector_deletions_total', 'resource="pipelines"')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'cairn_garbage_collector_leader')).toBe(1);
    expect(sample(text, 'cairn_garbage_collector_catch_ups')).toBeGreaterThan(0);
    expect(sample(text, 'workqueue_depth', 'name="garbage_collector_attempt_to_delete"')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'workqueue_depth', 'name="garbage_collector_attempt_to_orphan"')).toBeGreaterThanOrEqual(0);
  });
});

describe('--garbage-collector=off', () => {
  const server = sharedTestServer({ backend: 'pglite', args: ['--garbage-collector=off'] });

  it('runs no collector: no metrics of one, and a foreground deletion stays as the registry marked it', async () => {
    expect(await scrape(server())).not.toContain('cairn_garbage_collector_leader');
    const { owner } = await ownerAndDependent(server(), 'off-owner');
    await deleteInForeground(server(), owner);
    expect((await server().request('GET', owner)).json.metadata.finalizers).toEqual(['foregroundDeletion']);
  });
});

describe('restarts', () => {
  it('finishes at start the foreground deletion a stopped process left pending', async () => {
    const first = await startTestServer({ backend: 'pglite' });
    const { owner, dependent } = await ownerAndDependent(first, 'restart-owner');
    await deleteInForeground(first, owner);
    await first.close();
    const second = await startTestServer({ backend: 'pglite', dataDir: first.dataDir, garbageCollector: true });
    try {
      await gone(second, dependent);
      await gone(second, owner);
    } finally {
      await second.close();
      await rm(first.dataDir, { recursive: true, force: true });
    }
  });
});

describe('replicas on one PostgreSQL', () => {
  const replicas: TestServer[] = [];
  afterAll(async () => {
    for (const replica of replicas) await replica.destroy().catch(() => undefined);
  });

  it('run the collector on exactly one replica at a time; another takes over when it stops', async () => {
    const databaseUrl = await testDatabaseUrl();
    for (let i = 0; i < 2; i++) replicas.push(await startTestServer({ backend: 'postgres', databaseUrl, garbageCollector: true }));
    await eventually('one replica leads', 15_000, async () => (await Promise.all(replicas.map(isLeader))).filter(Boolean).length === 1);
    const leaders = await Promise.all(replicas.map(isLeader));
    const leader = replicas[leaders.indexOf(true)];
    const follower = replicas[leaders.indexOf(false)];
    // Asked of the replica that does not collect, the cascade is finished by the one that does.
    const first = await ownerAndDependent(follower, 'replica-owner');
    await deleteInForeground(follower, first.owner);
    await gone(follower, first.dependent);
    await gone(follower, first.owner);
    expect(await isLeader(follower)).toBe(false);

    await leader.destroy();
    replicas.splice(replicas.indexOf(leader), 1);
    await eventually('the other replica takes over', 15_000, () => isLeader(follower));
    const second = await ownerAndDependent(follower, 'takeover-owner');
    await deleteInForeground(follower, second.owner);
    await gone(follower, second.dependent);
    await gone(follower, second.owner);
  });
});
