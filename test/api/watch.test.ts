/**
 * Watch over the API, in process: kube-apiserver's resourceVersion semantics,
 * selectors and timeoutSeconds, and a watch from further back than the watch cache
 * holds. (410 Gone past the retention window and resuming after a restart are
 * storage's: test/storage/watch-history.test.ts.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { inProcessApp } from '../support/in-process-app.js';
import { pipeline } from '../support/test-server.js';
import { openWatch } from '../support/watch-client.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/default/pipelines';

describe('watch', () => {
  const app = inProcessApp([cairnGroup]);
  beforeAll(async () => {
    await app().request('POST', pipelines, { body: pipeline('existing', {}, { app: 'a' }) });
  });

  async function currentRv(): Promise<string> {
    return (await app().request('GET', pipelines)).json.metadata.resourceVersion;
  }

  it('without resourceVersion: the current objects as ADDED, then changes', async () => {
    const watch = await openWatch(app(), `${pipelines}?watch=true`);
    expect(watch.status).toBe(200);
    const [first] = await watch.waitFor(1);
    expect(first).toMatchObject({ type: 'ADDED', object: { kind: 'Pipeline', apiVersion: 'cairn.dev/v1', metadata: { name: 'existing' } } });
    await app().request('POST', pipelines, { body: pipeline('w-new') });
    const events = await watch.waitFor(2);
    expect(events[1]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'w-new' } } });
    watch.close();
  });

  it('with resourceVersion "0": starts from current state too', async () => {
    const watch = await openWatch(app(), `${pipelines}?watch=1&resourceVersion=0`);
    const names = (await watch.waitFor(2)).map((e) => e.object.metadata.name).sort();
    expect(names).toEqual(['existing', 'w-new']);
    watch.close();
  });

  it('with a specific resourceVersion: exactly the changes after it, in order, including DELETED', async () => {
    const rv = await currentRv();
    const watch = await openWatch(app(), `${pipelines}?watch=true&resourceVersion=${rv}`);
    // Headers arrive at once even though there is nothing to send yet.
    expect(watch.status).toBe(200);
    const created = (await app().request('POST', pipelines, { body: pipeline('w-spec') })).json;
    const patched = (
      await app().request('PATCH', `${pipelines}/w-spec`, { body: { spec: { replicas: 2 } }, headers: { 'Content-Type': 'application/merge-patch+json' } })
    ).json;
    const deleted = (await app().request('DELETE', `${pipelines}/w-spec`)).json;
    const events = await watch.waitFor(3);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(events.map((e) => e.object.metadata.resourceVersion)).toEqual([
      created.metadata.resourceVersion,
      patched.metadata.resourceVersion,
      deleted.metadata.resourceVersion,
    ]);
    expect(events[1].object.spec.replicas).toBe(2);
    watch.close();
  });

  it('filters by label selector on the cluster-wide path', async () => {
    const rv = await currentRv();
    const watch = await openWatch(app(), `/apis/cairn.dev/v1/pipelines?watch=true&resourceVersion=${rv}&labelSelector=app%3Dwanted`);
    await app().request('POST', pipelines, { body: pipeline('w-unwanted', {}, { app: 'other' }) });
    await app().request('POST', '/apis/cairn.dev/v1/namespaces/team/pipelines', { body: pipeline('w-wanted', {}, { app: 'wanted' }) });
    const [event] = await watch.waitFor(1);
    expect(event.object.metadata).toMatchObject({ name: 'w-wanted', namespace: 'team' });
    await new Promise((r) => setTimeout(r, 200));
    expect(watch.events).toHaveLength(1);
    watch.close();
  });

  it('ends the stream cleanly at timeoutSeconds', async () => {
    const started = Date.now();
    const watch = await openWatch(app(), `${pipelines}?watch=true&resourceVersion=${await currentRv()}&timeoutSeconds=1`);
    await watch.ended;
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(5000);
    expect(watch.events).toEqual([]);
  });

  it('watches cluster-scoped resources', async () => {
    const watch = await openWatch(app(), `/apis/cairn.dev/v1/runnerclasses?watch=true&resourceVersion=${await currentRv()}`);
    await app().request('POST', '/apis/cairn.dev/v1/runnerclasses', {
      body: { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name: 'fast' }, spec: { image: 'x' } },
    });
    const [event] = await watch.waitFor(1);
    expect(event).toMatchObject({ type: 'ADDED', object: { kind: 'RunnerClass', metadata: { name: 'fast' } } });
    watch.close();
  });

  it('rejects a malformed resourceVersion with 400', async () => {
    const res = await app().request('GET', `${pipelines}?watch=true&resourceVersion=abc`);
    expect(res.status).toBe(400);
    expect(res.json.kind).toBe('Status');
  });
});

describe('a watch from further back than the watch cache holds', () => {
  // A cache of five events: the watches below start before it and read the rest from the database.
  const app = inProcessApp([cairnGroup], { watchCacheCapacity: 5 });
  const merge = { 'Content-Type': 'application/merge-patch+json' };

  it('delivers every change after its resourceVersion once, in order, then the live ones', async () => {
    const from = (await app().request('POST', pipelines, { body: pipeline('far') })).json.metadata.resourceVersion;
    const written: string[] = [];
    for (let replicas = 2; replicas <= 13; replicas++) {
      const patched = await app().request('PATCH', `${pipelines}/far`, { body: { spec: { replicas } }, headers: merge });
      written.push(patched.json.metadata.resourceVersion);
    }
    // Other resources' writes push the cache's window past every one of them.
    for (const name of ['c1', 'c2', 'c3', 'c4', 'c5', 'c6']) {
      await app().request('POST', '/apis/cairn.dev/v1/runnerclasses', {
        body: { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name }, spec: { image: 'x' } },
      });
    }
    const watch = await openWatch(app(), `${pipelines}?watch=true&resourceVersion=${from}`);
    expect(watch.status).toBe(200);
    const history = await watch.waitFor(written.length);
    expect(history.map((e) => [e.type, e.object.metadata.resourceVersion])).toEqual(written.map((rv) => ['MODIFIED', rv]));
    const live = (await app().request('PATCH', `${pipelines}/far`, { body: { spec: { replicas: 14 } }, headers: merge })).json;
    const events = await watch.waitFor(written.length + 1);
    expect(events.at(-1)).toMatchObject({ type: 'MODIFIED', object: { metadata: { resourceVersion: live.metadata.resourceVersion }, spec: { replicas: 14 } } });
    // Nothing came twice: the next event is the next write.
    const after = (await app().request('PATCH', `${pipelines}/far`, { body: { spec: { replicas: 15 } }, headers: merge })).json;
    expect((await watch.waitFor(written.length + 2)).at(-1)?.object.metadata.resourceVersion).toBe(after.metadata.resourceVersion);
    watch.close();
  });
});
