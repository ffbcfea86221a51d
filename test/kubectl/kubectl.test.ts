/**
 * End to end: the machine's real kubectl (the dispatcher on PATH and two versioned
 * binaries) against a real Cairn server (TLS, PGlite), through the kubeconfig the server
 * writes with the admin client certificate.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { kubectlAvailable, kubectlClients, rows, runKubectl, waitFor, type RunResult } from '../support/kubectl.js';
import { pipeline, sharedTestServer } from '../support/test-server.js';

const clients = kubectlClients([29, 33]);

describe.runIf(kubectlAvailable)('kubectl end to end (needs kubectl on PATH)', () => {
  const srv = sharedTestServer({ backend: 'pglite' });

  for (const client of clients) {
    describe(client.label, () => {
      let home = '';
      const watchers = new Set<ChildProcess>();
      const pipelineName = `ingest-${client.slug}`;
      const watchedName = `watched-${client.slug}`;
      const runnerClassName = `standard-${client.slug}`;

      const env = (): NodeJS.ProcessEnv => ({ ...process.env, KUBECONFIG: srv().kubeconfigPath, HOME: home });

      const kubectl = (...args: string[]): Promise<RunResult> => runKubectl(client.binary, args, env());

      /** Runs kubectl and fails the test, showing its output, unless it exits 0. */
      const kubectlOk = async (...args: string[]): Promise<RunResult> => {
        const result = await kubectl(...args);
        expect(result.code, `kubectl ${args.join(' ')}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(0);
        return result;
      };

      /** Writes a manifest into this client's temporary directory and returns its path. */
      const manifestFile = async (name: string, manifest: unknown): Promise<string> => {
        const path = join(home, `${name}.yaml`);
        await writeFile(path, stringify(manifest));
        return path;
      };

      const pipelineManifest = {
        apiVersion: 'cairn.dev/v1',
        kind: 'Pipeline',
        metadata: { name: pipelineName, namespace: 'default', labels: { app: 'ingest', client: client.slug } },
        spec: {
          runnerClassName,
          replicas: 3,
          steps: [
            { name: 'fetch', image: 'alpine:3.20', command: ['sh', '-c', 'echo fetching'], env: [{ name: 'MODE', value: 'fast' }] },
            { name: 'store', image: 'busybox:1.36', command: ['true'], env: [{ name: 'TARGET', value: 's3://bucket' }, { name: 'EMPTY' }] },
          ],
        },
      };
      const runnerClassManifest = {
        apiVersion: 'cairn.dev/v1',
        kind: 'RunnerClass',
        metadata: { name: runnerClassName },
        spec: { image: 'registry.example/runner:1.0', maxReplicas: 10 },
      };

      beforeAll(async () => {
        // Fail loudly (rather than skip) when a versioned binary is missing.
        accessSync(client.binary, constants.X_OK);
        // A fresh HOME per client: its discovery cache starts empty.
        home = await mkdtemp(join(tmpdir(), `cairn-kubectl-${client.slug}-`));
      });

      afterAll(async () => {
        for (const watcher of watchers) watcher.kill('SIGKILL');
        if (home !== '') await rm(home, { recursive: true, force: true });
      });

      it('lists pipelines and runnerclasses in api-resources', async () => {
        const { stdout } = await kubectlOk('api-resources', '--api-group=cairn.dev');
        const table = rows(stdout);
        expect(table[0]).toEqual(['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
        expect(table).toContainEqual(['pipelines', 'pl', 'cairn.dev/v1', 'true', 'Pipeline']);
        expect(table).toContainEqual(['runnerclasses', 'rc', 'cairn.dev/v1', 'false', 'RunnerClass']);
        expect(table).toHaveLength(3);
      });

      it('creates a Pipeline and a RunnerClass from files, and refuses duplicates', async () => {
        const pipelineFile = await manifestFile('pipeline', pipelineManifest);
        const runnerClassFile = await manifestFile('runnerclass', runnerClassManifest);

        // The class first: a Pipeline may only name a RunnerClass that exists.
        const createdClass = await kubectlOk('create', '-f', runnerClassFile);
        expect(createdClass.stdout.trim()).toBe(`runnerclass.cairn.dev/${runnerClassName} created`);
        const created = await kubectlOk('create', '-f', pipelineFile);
        expect(created.stdout.trim()).toBe(`pipeline.cairn.dev/${pipelineName} created`);

        const again = await kubectl('create', '-f', pipelineFile);
        expect(again.code).not.toBe(0);
        expect(again.stderr).toContain('AlreadyExists');
        expect(again.stderr).toContain(`pipelines.cairn.dev "${pipelineName}" already exists`);
        const classAgain = await kubectl('create', '-f', runnerClassFile);
        expect(classAgain.code).not.toBe(0);
        expect(classAgain.stderr).toContain('AlreadyExists');
        expect(classAgain.stderr).toContain(`runnerclasses.cairn.dev "${runnerClassName}" already exists`);
      });

      it('gets the created objects back in tables, YAML and JSON', async () => {
        const all = rows((await kubectlOk('get', 'pipelines', '-A')).stdout);
        expect(all[0]?.slice(0, 2)).toEqual(['NAMESPACE', 'NAME']);
        expect(
          all.some((row) => row[0] === 'default' && row[1] === pipelineName),
          JSON.stringify(all),
        ).toBe(true);

        const got = parse((await kubectlOk('get', 'pipeline', pipelineName, '-o', 'yaml')).stdout) as Record<string, any>;
        expect(got['apiVersion']).toBe('cairn.dev/v1');
        expect(got['kind']).toBe('Pipeline');
        expect(got['metadata']).toMatchObject({
          name: pipelineName,
          namespace: 'default',
          labels: pipelineManifest.metadata.labels,
          uid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
          resourceVersion: expect.stringMatching(/^.+$/),
          creationTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
          generation: 1,
        });
        expect(got['metadata'].labels).toEqual(pipelineManifest.metadata.labels);
        // Every field sent comes back (defaults may add more).
        expect(got['spec']).toMatchObject(pipelineManifest.spec);

        const classes = rows((await kubectlOk('get', 'rc')).stdout);
        expect(classes[0]?.[0]).toBe('NAME');
        expect(
          classes.some((row) => row[0] === runnerClassName),
          JSON.stringify(classes),
        ).toBe(true);

        const json = JSON.parse((await kubectlOk('get', 'pl', pipelineName, '-o', 'json')).stdout) as Record<string, any>;
        expect(json['kind']).toBe('Pipeline');
        expect(json['metadata']).toMatchObject({ name: pipelineName, namespace: 'default', uid: got['metadata'].uid });
        expect(json['spec']).toMatchObject(pipelineManifest.spec);
      });

      it('shows a Pipeline created by another client in a running watch', async () => {
        const watcher = spawn(client.binary, ['get', 'pipelines', '-w', '--request-timeout=120s'], {
          env: env(),
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        watchers.add(watcher);
        let stdout = '';
        let stderr = '';
        let exit: string | undefined;
        watcher.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        watcher.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        watcher.on('exit', (code, signal) => (exit = `exited with ${code ?? signal}`));
        const exited = new Promise<void>((resolve) => watcher.on('close', () => resolve()));
        const rowOf = (name: string) => new RegExp(`^${name}\\s`, 'm');
        const shown = () => `stdout: ${JSON.stringify(stdout)}, stderr: ${JSON.stringify(stderr)}${exit ? `, ${exit}` : ''}`;
        try {
          // The existing rows first.
          await waitFor(() => rowOf(pipelineName).test(stdout) || exit !== undefined, 15_000, shown);
          expect(exit, shown()).toBeUndefined();
          expect(stdout, shown()).toMatch(rowOf(pipelineName));
          expect(stdout).not.toMatch(rowOf(watchedName));

          const response = await srv().request('POST', '/apis/cairn.dev/v1/namespaces/default/pipelines', {
            body: pipeline(watchedName, { runnerClassName }),
          });
          expect(response.status, response.text).toBe(201);

          await waitFor(() => rowOf(watchedName).test(stdout) || exit !== undefined, 5_000, shown);
          expect(exit, shown()).toBeUndefined();
          expect(stdout, shown()).toMatch(rowOf(watchedName));
        } finally {
          watcher.kill('SIGTERM');
          await exited;
          watchers.delete(watcher);
        }
      });

      it('deletes the Pipeline and the RunnerClass', async () => {
        const deleted = await kubectlOk('delete', 'pipeline', pipelineName);
        expect(deleted.stdout.trim()).toBe(`pipeline.cairn.dev "${pipelineName}" deleted`);

        const gone = await kubectl('get', 'pipeline', pipelineName);
        expect(gone.code).not.toBe(0);
        expect(gone.stderr).toContain('NotFound');
        expect(gone.stderr).toContain(`pipelines.cairn.dev "${pipelineName}" not found`);

        const deletedClass = await kubectlOk('delete', 'rc', runnerClassName);
        expect(deletedClass.stdout.trim()).toBe(`runnerclass.cairn.dev "${runnerClassName}" deleted`);
        const classGone = await kubectl('get', 'rc', runnerClassName);
        expect(classGone.code).not.toBe(0);
        expect(classGone.stderr).toContain('NotFound');
      });

      it('reports a validation error for a negative spec.replicas', async () => {
        const badName = `bad-${client.slug}`;
        const file = await manifestFile('bad', {
          ...pipelineManifest,
          metadata: { name: badName, namespace: 'default' },
          spec: { ...pipelineManifest.spec, replicas: -1 },
        });
        const result = await kubectl('create', '-f', file);
        expect(result.code).not.toBe(0);
        expect(result.stdout).toBe('');
        expect(result.stderr).toContain('Invalid');
        expect(result.stderr).toContain('spec.replicas');

        const notCreated = await kubectl('get', 'pipeline', badName);
        expect(notCreated.code).not.toBe(0);
        expect(notCreated.stderr).toContain('NotFound');
      });
    });
  }
});
