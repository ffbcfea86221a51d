/**
 * examples/ works as its README says: every manifest applies with the real kubectl
 * and gives the objects it describes (read back in v1, the hub), and the client
 * program creates, scales, watches and follows a Pipeline against a server running the
 * sample controller.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { versions } from '../../src/client/versions.js';
import { kubectlAvailable, kubectlOnPath, runKubectl, type RunResult } from '../support/kubectl.js';
import { sharedTestServer } from '../support/test-server.js';

const root = join(import.meta.dirname, '..', '..');
const manifests = join(root, 'examples/manifests');
const run = promisify(execFile);

describe('examples/', () => {
  const server = sharedTestServer({ backend: 'pglite', controller: true });

  describe.runIf(kubectlAvailable)('manifests, applied with kubectl (needs kubectl on PATH)', () => {
    let home = '';
    beforeAll(async () => {
      // A fresh HOME: kubectl's discovery cache starts empty.
      home = await mkdtemp(join(tmpdir(), 'cairn-examples-'));
    });
    afterAll(async () => {
      if (home) await rm(home, { recursive: true, force: true });
    });

    const kubectl = async (...args: string[]): Promise<RunResult> => {
      const result = await runKubectl(kubectlOnPath!, args, { ...process.env, KUBECONFIG: server().kubeconfigPath, HOME: home });
      expect(result.code, `kubectl ${args.join(' ')}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(0);
      return result;
    };
    const getJson = async (resource: string, name: string) => JSON.parse((await kubectl('get', resource, name, '-o', 'json')).stdout);

    it('holds a manifest for each served version', async () => {
      expect((await readdir(manifests)).sort()).toEqual(versions.map((version) => `${version}.yaml`).sort());
    });

    it.each(versions)('applies %s: a RunnerClass and a Pipeline using it, the same in v1 whatever version they were written in', async (version) => {
      const file = join(manifests, `${version}.yaml`);
      const applied = await kubectl('apply', '-f', file);
      expect(applied.stdout).toBe(`runnerclass.cairn.dev/batch-${version} created\npipeline.cairn.dev/ingest-${version} created\n`);

      const runnerClass = await getJson('runnerclasses.v1.cairn.dev', `batch-${version}`);
      expect(runnerClass.spec).toEqual({ image: 'registry.example/runner:1.4', maxReplicas: 8 });
      const pipeline = await getJson('pipelines.v1.cairn.dev', `ingest-${version}`);
      expect(pipeline.metadata.labels).toEqual({ team: 'data' });
      expect(pipeline.spec).toMatchObject({
        runnerClassName: `batch-${version}`,
        replicas: 2,
        steps: [
          { name: 'fetch', image: 'alpine:3.20', command: ['sh', '-c', 'wget -qO- https://example.com'] },
          { name: 'store', image: 'busybox:1.36', command: ['sh', '-c', 'cat > /data/page.html'] },
        ],
      });
      // v1alpha1 says nothing of env (nor paused); the others do.
      expect(pipeline.spec.steps[0].env).toEqual(version === 'v1alpha1' ? undefined : [{ name: 'MODE', value: 'fast' }]);

      // Read in the oldest version, the fields carry its names.
      const alpha = await getJson('pipelines.v1alpha1.cairn.dev', `ingest-${version}`);
      expect(alpha.spec).toMatchObject({ runnerClass: `batch-${version}`, parallelism: 2, steps: [{ run: 'wget -qO- https://example.com' }, {}] });

      // Applying the same file again changes nothing.
      expect((await kubectl('apply', '-f', file)).stdout).toBe(
        `runnerclass.cairn.dev/batch-${version} unchanged\npipeline.cairn.dev/ingest-${version} unchanged\n`,
      );
    });
  });

  it('runs pipeline-client.ts: creates, scales, watches until ready and follows the log', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/pipeline-client.ts', server().kubeconfigPath, 'from-example'], {
      cwd: root,
      timeout: 60_000,
    });
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^created pipeline default\/from-example \(uid [0-9a-f-]{36}\)$/);
    expect(lines[1]).toBe('scaled to 3 replicas');
    const watched = lines.filter((line) => /^(ADDED|MODIFIED):/.test(line));
    expect(watched[0]).toMatch(/^ADDED: \d\/3 ready/);
    // Usually several changes (1/3, 2/3, …) arrive; on a slow machine the list may already show all ready.
    expect(watched.at(-1)).toMatch(/^(ADDED|MODIFIED): 3\/3 ready, phase Running$/);
    const log = lines.filter((line) => line.startsWith('log: '));
    expect(log.length).toBeGreaterThan(0);
    expect(log.at(-1)).toContain('3/3');
    expect(lines).toEqual([lines[0], lines[1], ...watched, ...log]);

    const created = await server().request('GET', '/apis/cairn.dev/v1/namespaces/default/pipelines/from-example');
    expect(created.json.spec.replicas).toBe(3);
    expect(created.json.status.readyReplicas).toBe(3);
  }, 90_000);
});
