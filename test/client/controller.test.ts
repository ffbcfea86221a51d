/**
 * The sample controller against a real server, as a client over HTTPS: Pipelines
 * become Ready step by step, follow `/scale` and `spec.paused`, RunnerClasses count
 * their Pipelines, each step is logged, and the informers keep watching across the
 * server's watch timeouts. Also: `npm start` runs one in-process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCairnClient, loadKubeconfig, unwrap, type CairnClient, type Condition } from '../../src/client/index.js';
import { startController, type RunningController } from '../../src/controller/controller.js';
import { pipeline, sharedTestServer, startTestServer, type TestServer } from '../support/test-server.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/default/pipelines';
const runnerClasses = '/apis/cairn.dev/v1/runnerclasses';
const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

/** Polls `path` until `done` holds for the object read; fails with the last one after `ms`. */
async function eventually(server: TestServer, path: string, done: (object: any) => boolean, ms = 10_000): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { json } = await server.request('GET', path);
    if (done(json)) return json;
    if (Date.now() > deadline) throw new Error(`${path} did not settle within ${ms} ms: ${JSON.stringify(json)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const readyOf = (object: any): Condition | undefined => object.status?.conditions?.find((c: Condition) => c.type === 'Ready');
const settled = (object: any): boolean =>
  object.status?.observedGeneration === object.metadata.generation && object.status?.readyReplicas === object.status?.replicas;

describe('the sample controller', () => {
  const server = sharedTestServer({ backend: 'pglite' });
  let client: CairnClient;
  let controller: RunningController;
  beforeAll(async () => {
    client = createCairnClient(await loadKubeconfig(server().kubeconfigPath));
    controller = startController(client, { tickMs: 50, watchTimeoutSeconds: 1 });
    await controller.synced;
  });
  afterAll(async () => {
    await controller?.stop();
    client?.close();
  });

  it('brings a new Pipeline to Running, one ready replica per tick, with Ready=True', async () => {
    const watched: number[] = [];
    const stop = new AbortController();
    const list = await unwrap(client.api.GET('/apis/cairn.dev/v1/pipelines'));
    const watching = (async () => {
      const events = client.watch('/apis/cairn.dev/v1/namespaces/{namespace}/pipelines', {
        path: { namespace: 'default' },
        resourceVersion: list.metadata?.resourceVersion,
        signal: stop.signal,
      });
      for await (const { object } of events) {
        if (object.metadata?.name === 'steps' && object.status?.readyReplicas !== undefined) watched.push(object.status.readyReplicas);
      }
    })();
    await server().request('POST', pipelines, { body: pipeline('steps', { replicas: 3 }) });
    const ready = await eventually(server(), `${pipelines}/steps`, (p) => readyOf(p)?.status === 'True');
    stop.abort();
    await watching;
    expect(ready.status).toMatchObject({ phase: 'Running', replicas: 3, readyReplicas: 3, selector: 'cairn.dev/pipeline=steps', observedGeneration: 1 });
    expect(readyOf(ready)).toMatchObject({ reason: 'AllReplicasReady', message: '3/3 ready', observedGeneration: 1 });
    expect(watched).toEqual([1, 2, 3]);
  });

  it('follows a scale through /scale', async () => {
    await server().request('POST', pipelines, { body: pipeline('scaled', { replicas: 1 }) });
    await eventually(server(), `${pipelines}/scaled`, (p) => readyOf(p)?.status === 'True');
    await server().request('PATCH', `${pipelines}/scaled/scale`, { body: { spec: { replicas: 4 } }, headers: mergePatch });
    const scaling = await eventually(server(), `${pipelines}/scaled`, (p) => p.status?.replicas === 4);
    expect(scaling.status.phase).toBe('Pending');
    expect(readyOf(scaling)).toMatchObject({ status: 'False', reason: 'Scaling' });
    const after = await eventually(server(), `${pipelines}/scaled`, (p) => settled(p) && readyOf(p)?.status === 'True');
    expect(after.status).toMatchObject({ phase: 'Running', replicas: 4, readyReplicas: 4, observedGeneration: 2 });
    const scale = (await server().request('GET', `${pipelines}/scaled/scale`)).json;
    expect(scale).toMatchObject({ spec: { replicas: 4 }, status: { replicas: 4, selector: 'cairn.dev/pipeline=scaled' } });
  });

  it('pauses a Pipeline: phase Paused, runners stopped, Ready=False; resuming makes it Running again', async () => {
    await server().request('POST', pipelines, { body: pipeline('paused', { replicas: 2 }) });
    await eventually(server(), `${pipelines}/paused`, (p) => p.status?.phase === 'Running');
    await server().request('PATCH', `${pipelines}/paused`, { body: { spec: { paused: true } }, headers: mergePatch });
    const paused = await eventually(server(), `${pipelines}/paused`, (p) => p.status?.phase === 'Paused' && p.status.readyReplicas === 0);
    expect(readyOf(paused)).toMatchObject({ status: 'False', reason: 'Paused', message: '0/2 ready' });
    await server().request('PATCH', `${pipelines}/paused`, { body: { spec: { paused: false } }, headers: mergePatch });
    await eventually(server(), `${pipelines}/paused`, (p) => p.status?.phase === 'Running' && readyOf(p)?.status === 'True');
  });

  it('counts the Pipelines that use each RunnerClass', async () => {
    for (const name of ['fast', 'slow']) {
      await server().request('POST', runnerClasses, {
        body: { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name }, spec: { image: 'runner:1' } },
      });
    }
    for (const [name, runnerClassName] of [
      ['rc-1', 'fast'],
      ['rc-2', 'fast'],
      ['rc-3', 'slow'],
    ] as const) {
      await server().request('POST', pipelines, { body: pipeline(name, { runnerClassName }) });
    }
    await eventually(server(), `${runnerClasses}/fast`, (rc) => rc.status?.pipelines === 2);
    await eventually(server(), `${runnerClasses}/slow`, (rc) => rc.status?.pipelines === 1);
    await server().request('PATCH', `${pipelines}/rc-2`, { body: { spec: { runnerClassName: 'slow' } }, headers: mergePatch });
    await server().request('DELETE', `${pipelines}/rc-3`);
    await eventually(server(), `${runnerClasses}/fast`, (rc) => rc.status?.pipelines === 1);
    await eventually(server(), `${runnerClasses}/slow`, (rc) => rc.status?.pipelines === 1);
  });

  it('logs each step in the log of the Pipeline', async () => {
    await server().request('POST', pipelines, { body: pipeline('logged', { replicas: 2 }) });
    await eventually(server(), `${pipelines}/logged`, (p) => p.status?.phase === 'Running');
    const lines: string[] = [];
    for await (const line of client.readLog({ namespace: 'default', name: 'logged' })) lines.push(line);
    expect(lines).toEqual(['[cairn-controller] Scaling: 1/2 ready, phase Pending', '[cairn-controller] AllReplicasReady: 2/2 ready, phase Running']);
  });

  it('keeps watching after the server ends its watch streams', async () => {
    // Three watch timeouts pass; the informers reopened their watches from their last resourceVersion.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await server().request('POST', pipelines, { body: pipeline('later') });
    await eventually(server(), `${pipelines}/later`, (p) => p.status?.phase === 'Running');
  });
});

describe('npm start', () => {
  it('runs the controller in-process unless --no-controller', async () => {
    const server = await startTestServer({ backend: 'pglite', controller: true });
    try {
      await server.request('POST', pipelines, { body: pipeline('in-process', { replicas: 2 }) });
      const ready = await eventually(server, `${pipelines}/in-process`, (p) => readyOf(p)?.status === 'True');
      expect(ready.status).toMatchObject({ phase: 'Running', readyReplicas: 2 });
    } finally {
      await server.destroy();
    }
  });
});
