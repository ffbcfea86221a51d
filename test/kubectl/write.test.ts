/**
 * kubectl's write commands against Cairn: create, apply (client-side and server-side),
 * diff, patch (every type), edit, label, annotate, replace and delete. Every outcome is
 * read back through the API, not taken from kubectl's exit code. The dispatcher on PATH
 * (which runs kubectl.1.32 for Cairn's /version), kubectl.1.27 and kubectl.1.33 share one
 * PGlite server; each works in namespaces of its own with its own HOME, and every test
 * on objects of its own, so clients and tests all run concurrently.
 */
import { accessSync, constants } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it, type ExpectStatic } from 'vitest';
import { kubectlAvailable, kubectlClients, runKubectl, type RunResult } from '../support/kubectl.js';
import { pipeline, sharedTestServer } from '../support/test-server.js';

interface EnvVar {
  readonly name: string;
  readonly value?: string;
}

interface Step {
  readonly name: string;
  readonly image: string;
  readonly command?: readonly string[];
  readonly env?: readonly EnvVar[];
}

interface ManagedFieldsEntry {
  readonly manager: string;
  readonly operation: string;
  readonly fieldsV1?: { readonly 'f:spec'?: Record<string, unknown> };
}

/** The parts of a stored Pipeline these tests read. */
interface StoredPipeline {
  readonly metadata: {
    readonly name: string;
    readonly resourceVersion: string;
    readonly generation: number;
    readonly labels?: Record<string, string>;
    readonly annotations?: Record<string, string>;
    readonly managedFields?: readonly ManagedFieldsEntry[];
  };
  readonly spec: { readonly replicas: number; readonly paused?: boolean; readonly steps: readonly Step[] };
}

const fetchStep: Step = { name: 'fetch', image: 'alpine:3.20', command: ['sh', '-c', 'echo fetching'], env: [{ name: 'MODE', value: 'fast' }] };
const buildStep: Step = { name: 'build', image: 'golang:1.22', command: ['go', 'build'] };
const storeStep: Step = { name: 'store', image: 'busybox:1.36' };

/** A Pipeline manifest with the given steps, one replica unless `spec` says otherwise. */
const withSteps = (name: string, steps: readonly Step[], spec: Record<string, unknown> = {}, labels?: Record<string, string>) =>
  pipeline(name, { replicas: 1, steps, ...spec }, labels);

const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

const clients = kubectlClients([27, 33]);

describe.runIf(kubectlAvailable)('kubectl write commands across versions (needs kubectl on PATH)', () => {
  const srv = sharedTestServer({ backend: 'pglite' });

  const pipelinesPath = (namespace: string) => `/apis/cairn.dev/v1/namespaces/${namespace}/pipelines`;

  /** Creates a Pipeline through the API, as another client would: the setup of commands that change an object. */
  const createPipeline = async (namespace: string, manifest: unknown): Promise<StoredPipeline> => {
    const response = await srv().request('POST', pipelinesPath(namespace), { body: manifest });
    if (response.status !== 201) throw new Error(`POST ${pipelinesPath(namespace)}: ${response.status} ${response.text}`);
    return response.json as StoredPipeline;
  };

  /** The stored Pipeline, or undefined when there is none. */
  const lookUp = async (namespace: string, name: string): Promise<StoredPipeline | undefined> => {
    const response = await srv().request('GET', `${pipelinesPath(namespace)}/${name}`);
    if (response.status === 404) return undefined;
    if (response.status !== 200) throw new Error(`GET pipeline ${namespace}/${name}: ${response.status} ${response.text}`);
    return response.json as StoredPipeline;
  };

  /** The names of the Pipelines stored in `namespace`. */
  const storedNames = async (namespace: string): Promise<string[]> => {
    const response = await srv().request('GET', pipelinesPath(namespace));
    if (response.status !== 200) throw new Error(`GET pipelines in ${namespace}: ${response.status} ${response.text}`);
    return (response.json as { items: StoredPipeline[] }).items.map((item) => item.metadata.name);
  };

  describe.concurrent.each(clients)('$label', ({ binary, slug }) => {
    const namespace = `write-${slug}`;
    let home = '';

    const env = (): NodeJS.ProcessEnv => ({ ...process.env, KUBECONFIG: srv().kubeconfigPath, HOME: home });

    /**
     * Runs kubectl in this client's namespace (or `run.namespace`), with `run.env` added to its
     * environment, and fails the test, showing the output, unless it exits with `code`.
     */
    const kubectlExits = async (
      expect: ExpectStatic,
      code: number,
      args: readonly string[],
      run: { namespace?: string; env?: NodeJS.ProcessEnv } = {},
    ): Promise<RunResult> => {
      const result = await runKubectl(binary, [...args, '-n', run.namespace ?? namespace], { ...env(), ...run.env });
      expect(result.code, `kubectl ${args.join(' ')}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(code);
      return result;
    };

    const kubectlOk = (expect: ExpectStatic, ...args: string[]): Promise<RunResult> => kubectlExits(expect, 0, args);

    /**
     * Writes a manifest into this client's HOME and returns its path. JSON, not YAML: kubectl
     * reads YAML 1.1, where a label value such as `y` would turn into a boolean.
     */
    const manifestFile = async (file: string, manifest: unknown): Promise<string> => {
      const path = join(home, `${file}.json`);
      await writeFile(path, JSON.stringify(manifest));
      return path;
    };

    /** The stored Pipeline in this client's namespace; fails when there is none. */
    const stored = async (name: string): Promise<StoredPipeline> => {
      const found = await lookUp(namespace, name);
      if (found === undefined) throw new Error(`pipeline ${namespace}/${name} is not stored`);
      return found;
    };

    beforeAll(async () => {
      // Fail loudly (rather than skip) when a versioned binary is missing.
      accessSync(binary, constants.X_OK);
      // A fresh HOME: the discovery cache under ~/.kube starts empty.
      home = await mkdtemp(join(tmpdir(), `cairn-kubectl-write-${slug}-`));
    });

    afterAll(async () => {
      if (home !== '') await rm(home, { recursive: true, force: true });
    });

    it('create -f stores the manifest; create --dry-run=server -f stores nothing', async ({ expect }) => {
      const manifest = withSteps('made', [fetchStep, buildStep]);
      const created = await kubectlOk(expect, 'create', '-f', await manifestFile('made', manifest));
      expect(created.stdout.trim()).toBe('pipeline.cairn.dev/made created');
      expect((await stored('made')).spec).toEqual(manifest.spec);

      const dry = await kubectlOk(expect, 'create', '--dry-run=server', '-f', await manifestFile('dry', withSteps('dry', [fetchStep])));
      expect(dry.stdout.trim()).toBe('pipeline.cairn.dev/dry created (server dry run)');
      expect(await lookUp(namespace, 'dry')).toBeUndefined();
    });

    it('apply -f creates, configures a changed and a removed step, and leaves an unchanged manifest alone', async ({ expect }) => {
      const apply = async (file: string, manifest: unknown) => (await kubectlOk(expect, 'apply', '-f', await manifestFile(file, manifest))).stdout.trim();

      const first = withSteps('converged', [fetchStep, buildStep, storeStep]);
      expect(await apply('converged-1', first)).toBe('pipeline.cairn.dev/converged created');
      const created = await stored('converged');
      expect(created.spec).toEqual(first.spec);
      expect(JSON.parse(created.metadata.annotations?.[lastApplied] ?? 'null')).toMatchObject({ kind: 'Pipeline', spec: first.spec });

      const newBuild = { ...buildStep, image: 'golang:1.23' };
      expect(await apply('converged-2', withSteps('converged', [fetchStep, newBuild, storeStep]))).toBe('pipeline.cairn.dev/converged configured');
      expect((await stored('converged')).spec.steps).toEqual([fetchStep, newBuild, storeStep]);

      const last = withSteps('converged', [fetchStep, newBuild]);
      expect(await apply('converged-3', last)).toBe('pipeline.cairn.dev/converged configured');
      const converged = await stored('converged');
      expect(converged.spec.steps).toEqual([fetchStep, newBuild]);
      expect(JSON.parse(converged.metadata.annotations?.[lastApplied] ?? 'null')).toMatchObject({ spec: last.spec });

      expect(await apply('converged-3', last)).toBe('pipeline.cairn.dev/converged unchanged');
      expect((await stored('converged')).metadata.resourceVersion).toBe(converged.metadata.resourceVersion);
    });

    it('apply -f changes, adds and removes the env entries of a step', async ({ expect }) => {
      const step = (env: readonly EnvVar[]): Step => ({ ...fetchStep, env });
      await kubectlOk(
        expect,
        'apply',
        '-f',
        await manifestFile(
          'env-1',
          withSteps('envs', [
            step([
              { name: 'MODE', value: 'fast' },
              { name: 'KEEP', value: 'k' },
              { name: 'OLD', value: 'o' },
            ]),
            buildStep,
          ]),
        ),
      );
      const changed = step([
        { name: 'MODE', value: 'slow' },
        { name: 'KEEP', value: 'k' },
        { name: 'NEW', value: 'n' },
      ]);
      const applied = await kubectlOk(expect, 'apply', '-f', await manifestFile('env-2', withSteps('envs', [changed, buildStep])));
      expect(applied.stdout.trim()).toBe('pipeline.cairn.dev/envs configured');
      expect((await stored('envs')).spec.steps).toEqual([changed, buildStep]);
    });

    it('apply -f keeps the steps and env entries another writer added (strategic merge patch)', async ({ expect }) => {
      await kubectlOk(expect, 'apply', '-f', await manifestFile('shared-1', withSteps('shared', [fetchStep, buildStep])));
      // Another writer adds a step and an env entry that the applied manifests never mention.
      const lint: Step = { name: 'lint', image: 'golangci/golangci-lint:v1.59' };
      const injected: EnvVar = { name: 'INJECTED', value: 'by-controller' };
      const added = await srv().request('PATCH', `${pipelinesPath(namespace)}/shared`, {
        headers: { 'Content-Type': 'application/json-patch+json' },
        body: [
          { op: 'add', path: '/spec/steps/-', value: lint },
          { op: 'add', path: '/spec/steps/0/env/-', value: injected },
        ],
      });
      expect(added.status, added.text).toBe(200);

      // Merge patch would replace both lists whole; kubectl sends strategic merge patch (merge by `name`) when OpenAPI offers it.
      const slowFetch = { ...fetchStep, env: [{ name: 'MODE', value: 'slow' }] };
      const newBuild = { ...buildStep, image: 'golang:1.23' };
      const applied = await kubectlOk(expect, 'apply', '-f', await manifestFile('shared-2', withSteps('shared', [slowFetch, newBuild])));
      expect(applied.stdout.trim()).toBe('pipeline.cairn.dev/shared configured');
      // $setElementOrder keeps the manifest's order; what only the server has stays after what it followed.
      expect((await stored('shared')).spec.steps).toEqual([{ ...slowFetch, env: [...slowFetch.env, injected] }, newBuild, lint]);
    });

    it('apply --server-side -f creates, conflicts with another manager, and --force-conflicts takes the field over', async ({ expect }) => {
      const created = await kubectlOk(expect, 'apply', '--server-side', '-f', await manifestFile('owned-1', withSteps('owned', [fetchStep], { replicas: 2 })));
      expect(created.stdout.trim()).toBe('pipeline.cairn.dev/owned serverside-applied');
      const first = await stored('owned');
      expect(first.spec).toEqual({ runnerClassName: 'standard', replicas: 2, steps: [fetchStep] });
      expect(first.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: 'kubectl', operation: 'Apply' }));

      // `other` applies only spec.replicas, which `kubectl` owns with another value.
      const takeover = await manifestFile('owned-2', { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'owned' }, spec: { replicas: 3 } });
      const conflict = await kubectlExits(expect, 1, ['apply', '--server-side', '--field-manager=other', '-f', takeover]);
      expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl"');
      expect(conflict.stderr).toMatch(/: \.spec\.replicas$/m);
      // kubectl adds its advice only when the Status is a 409 Conflict.
      expect(conflict.stderr).toContain('Please review the fields above--they currently have other managers.');
      expect((await stored('owned')).spec.replicas).toBe(2);

      const forced = await kubectlOk(expect, 'apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', takeover);
      expect(forced.stdout.trim()).toBe('pipeline.cairn.dev/owned serverside-applied');
      const taken = await stored('owned');
      expect(taken.spec).toEqual({ runnerClassName: 'standard', replicas: 3, steps: [fetchStep] });
      const managers = taken.metadata.managedFields ?? [];
      expect(managers).toContainEqual(expect.objectContaining({ manager: 'other', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }));
      const kubectlFields = managers.find((entry) => entry.manager === 'kubectl')?.fieldsV1?.['f:spec'];
      expect(kubectlFields).toHaveProperty(['f:runnerClassName']);
      expect(kubectlFields).not.toHaveProperty(['f:replicas']);
    });

    it('apply --server-side -f removes the fields its manager stops applying', async ({ expect }) => {
      const first = withSteps('pruned', [fetchStep, buildStep], { paused: true }, { app: 'x', tier: 'a' });
      await kubectlOk(expect, 'apply', '--server-side', '-f', await manifestFile('pruned-1', first));
      expect((await stored('pruned')).spec).toEqual(first.spec);

      const second = withSteps('pruned', [fetchStep], {}, { app: 'x' });
      const applied = await kubectlOk(expect, 'apply', '--server-side', '-f', await manifestFile('pruned-2', second));
      expect(applied.stdout.trim()).toBe('pipeline.cairn.dev/pruned serverside-applied');
      const pruned = await stored('pruned');
      expect(pruned.spec).toEqual(second.spec);
      expect(pruned.metadata.labels).toEqual({ app: 'x' });
    });

    it('patch --type=strategic merges steps by name and deletes one with $patch: delete', async ({ expect }) => {
      await createPipeline(namespace, withSteps('merged', [fetchStep, buildStep, storeStep]));
      const patched = await kubectlOk(expect, 'patch', 'pipeline', 'merged', '--type=strategic', '-p', '{"spec":{"steps":[{"name":"fetch","image":"x"}]}}');
      expect(patched.stdout.trim()).toBe('pipeline.cairn.dev/merged patched');
      expect((await stored('merged')).spec.steps).toEqual([{ ...fetchStep, image: 'x' }, buildStep, storeStep]);

      await kubectlOk(expect, 'patch', 'pipeline', 'merged', '--type=strategic', '-p', '{"spec":{"steps":[{"name":"build","$patch":"delete"}]}}');
      expect((await stored('merged')).spec.steps).toEqual([{ ...fetchStep, image: 'x' }, storeStep]);
    });

    it('patch --type=merge and --type=json change exactly the fields they name', async ({ expect }) => {
      await createPipeline(namespace, withSteps('patched', [fetchStep, buildStep]));
      const merged = await kubectlOk(expect, 'patch', 'pipeline', 'patched', '--type=merge', '-p', '{"spec":{"replicas":5,"paused":true}}');
      expect(merged.stdout.trim()).toBe('pipeline.cairn.dev/patched patched');
      expect((await stored('patched')).spec).toEqual({ runnerClassName: 'standard', replicas: 5, paused: true, steps: [fetchStep, buildStep] });

      const jsonPatched = await kubectlOk(expect, 'patch', 'pipeline', 'patched', '--type=json', '-p', '[{"op":"replace","path":"/spec/replicas","value":4}]');
      expect(jsonPatched.stdout.trim()).toBe('pipeline.cairn.dev/patched patched');
      expect((await stored('patched')).spec).toEqual({ runnerClassName: 'standard', replicas: 4, paused: true, steps: [fetchStep, buildStep] });
    });

    it('edit saves what the editor changed, and cancels when the editor changes nothing', async ({ expect }) => {
      await createPipeline(namespace, withSteps('edited', [fetchStep]));
      // kubectl runs $KUBE_EDITOR (before $EDITOR) on a YAML file of the object and sends what it leaves behind.
      const editor = join(home, 'edit-replicas.sh');
      await writeFile(editor, '#!/bin/sh\nsed -i "s/^  replicas: 1$/  replicas: 6/" "$1"\n');
      await chmod(editor, 0o755);
      const edited = await kubectlExits(expect, 0, ['edit', 'pipeline', 'edited'], { env: { KUBE_EDITOR: editor } });
      expect(edited.stdout.trim()).toBe('pipeline.cairn.dev/edited edited');
      const after = await stored('edited');
      expect(after.spec).toEqual({ runnerClassName: 'standard', replicas: 6, steps: [fetchStep] });

      const cancelled = await kubectlExits(expect, 0, ['edit', 'pipeline', 'edited'], { env: { KUBE_EDITOR: 'true' } });
      expect(cancelled.stderr.trim()).toBe('Edit cancelled, no changes made.');
      expect((await stored('edited')).metadata.resourceVersion).toBe(after.metadata.resourceVersion);
    });

    it('label adds, refuses to overwrite without --overwrite, overwrites and removes a label', async ({ expect }) => {
      await createPipeline(namespace, withSteps('tagged', [fetchStep], {}, { app: 'x' }));
      const labels = async () => (await stored('tagged')).metadata.labels;

      expect((await kubectlOk(expect, 'label', 'pipeline', 'tagged', 'env=prod')).stdout.trim()).toBe('pipeline.cairn.dev/tagged labeled');
      expect(await labels()).toEqual({ app: 'x', env: 'prod' });

      const refused = await kubectlExits(expect, 1, ['label', 'pipeline', 'tagged', 'env=dev']);
      expect(refused.stderr).toContain("'env' already has a value (prod), and --overwrite is false");
      expect(await labels()).toEqual({ app: 'x', env: 'prod' });

      await kubectlOk(expect, 'label', 'pipeline', 'tagged', 'env=dev', '--overwrite');
      expect(await labels()).toEqual({ app: 'x', env: 'dev' });

      expect((await kubectlOk(expect, 'label', 'pipeline', 'tagged', 'env-')).stdout.trim()).toBe('pipeline.cairn.dev/tagged unlabeled');
      expect(await labels()).toEqual({ app: 'x' });
    });

    it('annotate adds, overwrites with --overwrite and removes an annotation', async ({ expect }) => {
      await createPipeline(namespace, withSteps('noted', [fetchStep]));
      const note = async () => (await stored('noted')).metadata.annotations?.['note'];

      // kubectl 1.27 prints "annotate", later versions "annotated".
      expect((await kubectlOk(expect, 'annotate', 'pipeline', 'noted', 'note=hi')).stdout.trim()).toMatch(/^pipeline\.cairn\.dev\/noted annotated?$/);
      expect(await note()).toBe('hi');

      const refused = await kubectlExits(expect, 1, ['annotate', 'pipeline', 'noted', 'note=ho']);
      // The wording around the two facts differs between kubectl versions.
      expect(refused.stderr).toContain("'note' already has a value (hi)");
      expect(refused.stderr).toContain('--overwrite is false');
      await kubectlOk(expect, 'annotate', 'pipeline', 'noted', 'note=ho', '--overwrite');
      expect(await note()).toBe('ho');

      await kubectlOk(expect, 'annotate', 'pipeline', 'noted', 'note-');
      expect(await note()).toBeUndefined();
    });

    it('replace -f replaces the whole object, and a stale resourceVersion in the file gets Conflict', async ({ expect }) => {
      const original = await createPipeline(namespace, withSteps('replaced', [fetchStep, buildStep], { paused: true }, { app: 'x' }));
      // Without a resourceVersion in the file, kubectl replace takes the current one.
      const replacement = withSteps('replaced', [buildStep], { replicas: 2 });
      const replaced = await kubectlOk(expect, 'replace', '-f', await manifestFile('replaced', replacement));
      expect(replaced.stdout.trim()).toBe('pipeline.cairn.dev/replaced replaced');
      const current = await stored('replaced');
      expect(current.spec).toEqual(replacement.spec);
      expect(current.metadata.labels).toBeUndefined();

      const stale = await kubectlExits(expect, 1, [
        'replace',
        '-f',
        await manifestFile('replaced-stale', { ...original, spec: { ...original.spec, replicas: 9 } }),
      ]);
      expect(stale.stderr).toContain('Error from server (Conflict): error when replacing');
      expect(stale.stderr).toContain('Operation cannot be fulfilled on pipelines.cairn.dev "replaced": the object has been modified');
      expect((await stored('replaced')).metadata.resourceVersion).toBe(current.metadata.resourceVersion);
    });

    it('delete -l, delete --dry-run=server and delete --all delete exactly what they select', async ({ expect }) => {
      // Namespaces of their own: --all must find nothing of the other tests', and must spare other namespaces.
      const doomed = `${namespace}-delete`;
      const spared = `${namespace}-spared`;
      await Promise.all([
        createPipeline(doomed, withSteps('x1', [fetchStep], {}, { app: 'x' })),
        createPipeline(doomed, withSteps('x2', [fetchStep], {}, { app: 'x' })),
        createPipeline(doomed, withSteps('z1', [fetchStep], {}, { app: 'z' })),
        createPipeline(spared, withSteps('x3', [fetchStep], {}, { app: 'x' })),
      ]);
      const deleteOk = async (...args: string[]) => (await kubectlExits(expect, 0, ['delete', ...args], { namespace: doomed })).stdout.trim().split('\n');

      expect(await deleteOk('pipelines', '-l', 'app=x')).toEqual(['pipeline.cairn.dev "x1" deleted', 'pipeline.cairn.dev "x2" deleted']);
      expect(await storedNames(doomed)).toEqual(['z1']);

      expect(await deleteOk('pipeline', 'z1', '--dry-run=server')).toEqual(['pipeline.cairn.dev "z1" deleted (server dry run)']);
      expect(await storedNames(doomed)).toEqual(['z1']);

      expect(await deleteOk('pipelines', '--all')).toEqual(['pipeline.cairn.dev "z1" deleted']);
      expect(await storedNames(doomed)).toEqual([]);
      expect(await storedNames(spared)).toEqual(['x3']);
    });

    it('diff -f shows a change without making it (exit 1), and nothing for an applied manifest (exit 0)', async ({ expect }) => {
      const applied = await manifestFile('diffed', withSteps('diffed', [fetchStep]));
      await kubectlOk(expect, 'apply', '-f', applied);
      const before = await stored('diffed');

      const same = await kubectlExits(expect, 0, ['diff', '-f', applied]);
      expect(same.stdout).toBe('');

      const changed = await kubectlExits(expect, 1, ['diff', '-f', await manifestFile('diffed-changed', withSteps('diffed', [fetchStep], { replicas: 3 }))]);
      expect(changed.stdout).toMatch(/^- {2}replicas: 1$/m);
      expect(changed.stdout).toMatch(/^\+ {2}replicas: 3$/m);
      expect((await stored('diffed')).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    });
  });
});
