/**
 * End to end with the in-process sample controller, as `npm start` runs it: kubectl
 * creates a Pipeline and waits for Ready, scales it through the scale subresource
 * and sees the status follow, reads status and Scale through --subresource, reads the
 * history with get --raw, and follows the log until the Pipeline is deleted.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlAvailable, kubectlOnPath, rows, runKubectl, waitFor, type RunResult } from '../support/kubectl.js';
import { pipeline, sharedTestServer } from '../support/test-server.js';

const name = 'e2e';
const path = `/apis/cairn.dev/v1/namespaces/default/pipelines/${name}`;

describe.runIf(kubectlAvailable)('kubectl with the sample controller (needs kubectl on PATH)', () => {
  const srv = sharedTestServer({ backend: 'pglite', controller: true });
  let home = '';
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, KUBECONFIG: srv().kubeconfigPath, HOME: home });
  const kubectl = (...args: string[]): Promise<RunResult> => runKubectl(kubectlOnPath!, args, env());
  const kubectlOk = async (...args: string[]): Promise<RunResult> => {
    const result = await kubectl(...args);
    expect(result.code, `kubectl ${args.join(' ')}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(0);
    return result;
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'cairn-kubectl-e2e-'));
  });
  afterAll(async () => {
    if (home !== '') await rm(home, { recursive: true, force: true });
  });

  it('creates a Pipeline and waits until the controller reports it Ready', async () => {
    const file = join(home, 'pipeline.json');
    await writeFile(file, JSON.stringify(pipeline(name, { replicas: 2 })));
    await kubectlOk('create', '-f', file);
    const waited = await kubectlOk('wait', '--for=condition=Ready', `pipeline/${name}`, '--timeout=30s');
    expect(waited.stdout.trim()).toBe(`pipeline.cairn.dev/${name} condition met`);
    const status = (await srv().request('GET', path)).json.status;
    expect(status).toMatchObject({ phase: 'Running', replicas: 2, readyReplicas: 2, selector: `cairn.dev/pipeline=${name}`, observedGeneration: 1 });
  });

  it('scales to 5 with kubectl scale, checks --current-replicas, and the status follows', async () => {
    const refused = await kubectl('scale', 'pipeline', name, '--current-replicas=3', '--replicas=4');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('Expected replicas to be 3, was 2');
    const scaled = await kubectlOk('scale', 'pipeline', name, '--current-replicas=2', '--replicas=5');
    expect(scaled.stdout.trim()).toBe(`pipeline.cairn.dev/${name} scaled`);
    await kubectlOk('wait', '--for=jsonpath={.status.readyReplicas}=5', `pipeline/${name}`, '--timeout=30s');
    await kubectlOk('wait', '--for=condition=Ready', `pipeline/${name}`, '--timeout=30s');
    const object = (await srv().request('GET', path)).json;
    expect(object.spec.replicas).toBe(5);
    expect(object.status).toMatchObject({ replicas: 5, readyReplicas: 5, observedGeneration: object.metadata.generation });
  });

  it('reads the status and the Scale through --subresource', async () => {
    const status = JSON.parse((await kubectlOk('get', 'pipeline', name, '--subresource=status', '-o', 'json')).stdout);
    expect(status).toMatchObject({ kind: 'Pipeline', status: { replicas: 5 } });
    const scale = JSON.parse((await kubectlOk('get', 'pipeline', name, '--subresource=scale', '-o', 'json')).stdout);
    expect(scale).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 5 },
      status: { replicas: 5, selector: `cairn.dev/pipeline=${name}` },
    });
    const table = rows((await kubectlOk('get', 'pipeline', name, '--subresource=scale')).stdout);
    expect(table[0]).toEqual(['NAME', 'CREATED', 'AT']);
    expect(table[1]?.[0]).toBe(name);
  });

  it('reads the history with get --raw: kubectl’s create and scale (a PUT of the Scale, managed under its User-Agent), and the controller’s status patches, newest first', async () => {
    const history = JSON.parse((await kubectlOk('get', '--raw', `${path}/history`)).stdout);
    expect(history).toMatchObject({ apiVersion: 'cairn.dev/v1', kind: 'RevisionList' });
    const items: { resourceVersion: string; operation: string; subresource: string; fieldManager: string; user: string; object: any }[] = history.items;
    expect(items.at(-1)).toMatchObject({
      operation: 'create',
      subresource: '',
      fieldManager: 'kubectl-create',
      user: 'cairn-admin',
      object: { spec: { replicas: 2 } },
    });
    expect(items).toContainEqual(
      expect.objectContaining({
        operation: 'update',
        subresource: 'scale',
        fieldManager: 'kubectl',
        object: expect.objectContaining({ spec: expect.objectContaining({ replicas: 5 }) }),
      }),
    );
    expect(items).toContainEqual(expect.objectContaining({ operation: 'patch', subresource: 'status', fieldManager: 'cairn-controller' }));
    const versions = items.map((item) => BigInt(item.resourceVersion));
    expect(versions).toEqual([...versions].sort((a, b) => (a > b ? -1 : 1)));
    // A revision is the object as its write left it: the one kubectl reads now is the revision of its resourceVersion.
    const current = JSON.parse((await kubectlOk('get', 'pipeline', name, '-o', 'json', '--show-managed-fields')).stdout);
    const again = JSON.parse((await kubectlOk('get', '--raw', `${path}/history`)).stdout).items;
    expect(again.find((item: { resourceVersion: string }) => item.resourceVersion === current.metadata.resourceVersion)?.object).toEqual(current);
    const page = JSON.parse((await kubectlOk('get', '--raw', `${path}/history?limit=1`)).stdout);
    expect(page.items).toHaveLength(1);
    expect(BigInt(page.items[0].resourceVersion)).toBeGreaterThanOrEqual(versions[0]);
    expect(page.metadata.continue).toBeTruthy();
  });

  it('follows the log with get --raw until the Pipeline is deleted', async () => {
    const follower = spawn(kubectlOnPath!, ['get', '--raw', `${path}/log?follow=true`], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let exitCode: number | null | undefined;
    follower.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    follower.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<void>((resolve) => follower.on('close', (code) => ((exitCode = code), resolve())));
    const shown = () => `stdout: ${JSON.stringify(stdout)}, stderr: ${JSON.stringify(stderr)}, exit: ${exitCode}`;
    try {
      // The controller logs each reconcile step.
      await waitFor(() => stdout.includes('[cairn-controller]') || exitCode !== undefined, 15_000, shown);
      const appended = await srv().request('POST', `${path}/log`, { body: { step: 'fetch', lines: ['hello from the runner', 'second line'] } });
      expect(appended.status, appended.text).toBe(201);
      await waitFor(() => stdout.includes('hello from the runner\nsecond line\n') || exitCode !== undefined, 5_000, shown);
      expect(exitCode, shown()).toBeUndefined();
      const tail = await kubectlOk('get', '--raw', `${path}/log?tailLines=1`);
      expect(tail.stdout).toBe('second line\n');

      await kubectlOk('delete', 'pipeline', name);
      await waitFor(() => exitCode !== undefined, 10_000, shown);
      expect(exitCode, shown()).toBe(0);
    } finally {
      follower.kill('SIGKILL');
      await exited;
    }
  });
});
