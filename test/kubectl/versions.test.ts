/**
 * cairn.dev's three served versions as every kubectl from 1.27 to 1.33 uses them: a Pipeline
 * read as v1alpha1 (its printer columns and fields), a v1alpha1 manifest applied and read back
 * as v1, `kubectl explain` of v1beta1 and v1alpha1, and a server-side apply of a v1beta1
 * manifest over an object created in v1, its managedFields entry and the conflict another
 * field manager gets. One PGlite server serves every version; each version works in a
 * namespace of its own with its own HOME (so neither objects nor discovery caches leak between
 * versions), every test on objects of its own, so versions and tests run concurrently.
 */
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it, type ExpectStatic } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { specAnnotation } from '../../src/apis/cairn/v1alpha1/conversion.js';
import { kubectlAvailable, kubectlMinors, runKubectl, versionedKubectl, type RunResult } from '../support/kubectl.js';
import { pipeline, runnerClass, sharedTestServer } from '../support/test-server.js';

/** The parts of a managedFields entry these tests read. */
interface ManagedFieldsEntry {
  readonly manager: string;
  readonly operation: string;
  readonly apiVersion: string;
  readonly fieldsV1?: Record<string, unknown>;
}

/** A Pipeline as the API returns it, in whichever version. */
interface ServedPipeline {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly uid: string;
    readonly labels?: Record<string, string>;
    readonly annotations?: Record<string, string>;
    readonly managedFields?: readonly ManagedFieldsEntry[];
  };
  readonly spec: Record<string, unknown>;
}

const pipelineHeader = ['NAME', 'RUNNERCLASS', 'REPLICAS', 'READY', 'PHASE', 'AGE'];

/**
 * Splits kubectl's table output into cells at the header's column offsets, keeping empty
 * cells in place (an unset READY cannot pass for PHASE).
 */
function table(output: string): string[][] {
  const lines = output.split('\n').filter((line) => line.trim() !== '');
  const starts = [...(lines[0] ?? '').matchAll(/\S+/g)].map((match) => match.index);
  return lines.map((line) => starts.map((start, i) => line.slice(start, starts[i + 1]).trim()));
}

/** The field names `kubectl explain` lists under FIELDS (two spaces, the name, a tab). */
function explainedFields(output: string): string[] {
  return [...output.matchAll(/^ {2}(\w+)\t</gm)].map((match) => match[1]);
}

/** A v1alpha1 Pipeline manifest, as a client of the first release writes it. */
function alphaPipeline(name: string, spec: { runnerClass: string; parallelism: number; run: string }) {
  return {
    apiVersion: 'cairn.dev/v1alpha1',
    kind: 'Pipeline',
    metadata: { name },
    spec: { runnerClass: spec.runnerClass, parallelism: spec.parallelism, steps: [{ name: 'fetch', image: 'alpine:3.20', run: spec.run }] },
  };
}

describe.runIf(kubectlAvailable)('kubectl 1.27–1.33 with cairn.dev v1, v1beta1 and v1alpha1 (needs kubectl on PATH)', () => {
  const srv = sharedTestServer({ backend: 'pglite' });
  // The class some Pipelines name must exist before they are created.
  beforeAll(async () => {
    await srv().request('POST', '/apis/cairn.dev/v1/runnerclasses', { body: runnerClass('fast') });
  });

  const pipelinesPath = (namespace: string, version = 'v1') => `/apis/cairn.dev/${version}/namespaces/${namespace}/pipelines`;

  /** Creates a Pipeline through the v1 API, as another client would. */
  const createPipeline = async (namespace: string, manifest: unknown): Promise<ServedPipeline> => {
    const response = await srv().request('POST', pipelinesPath(namespace), { body: manifest });
    if (response.status !== 201) throw new Error(`POST ${pipelinesPath(namespace)}: ${response.status} ${response.text}`);
    return response.json as ServedPipeline;
  };

  /** The Pipeline as stored, read through the v1 API (managedFields included). */
  const stored = async (namespace: string, name: string): Promise<ServedPipeline> => {
    const response = await srv().request('GET', `${pipelinesPath(namespace)}/${name}`);
    if (response.status !== 200) throw new Error(`GET pipeline ${namespace}/${name}: ${response.status} ${response.text}`);
    return response.json as ServedPipeline;
  };

  describe.concurrent.each(kubectlMinors.map((minor) => ({ minor })))('kubectl.1.$minor', ({ minor }) => {
    const binary = versionedKubectl(minor);
    const namespace = `versions-v1${minor}`;
    let home = '';

    const env = (): NodeJS.ProcessEnv => ({ ...process.env, KUBECONFIG: srv().kubeconfigPath, HOME: home });

    /** Runs kubectl in this version's namespace and fails the test, showing its output, unless it exits with `code`. */
    const kubectlExits = async (expect: ExpectStatic, code: number, ...args: string[]): Promise<RunResult> => {
      const result = await runKubectl(binary, [...args, '-n', namespace], env());
      expect(result.code, `kubectl.1.${minor} ${args.join(' ')}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(code);
      return result;
    };
    const kubectlOk = (expect: ExpectStatic, ...args: string[]): Promise<RunResult> => kubectlExits(expect, 0, ...args);

    /**
     * Writes a manifest into this version's HOME and returns its path. JSON, not YAML: kubectl
     * reads YAML 1.1, where a value such as `y` would turn into a boolean.
     */
    const manifestFile = async (file: string, manifest: unknown): Promise<string> => {
      const path = join(home, `${file}.json`);
      await writeFile(path, JSON.stringify(manifest));
      return path;
    };

    beforeAll(async () => {
      // Fail loudly (rather than skip) when a versioned binary is missing.
      accessSync(binary, constants.X_OK);
      // A fresh HOME: the discovery and OpenAPI caches under ~/.kube start empty.
      home = await mkdtemp(join(tmpdir(), `cairn-kubectl-versions-${minor}-`));
    });

    afterAll(async () => {
      if (home !== '') await rm(home, { recursive: true, force: true });
    });

    it('get pipelines.v1alpha1.cairn.dev prints v1alpha1’s columns, and -o yaml the object in v1alpha1', async ({ expect }) => {
      const name = 'read-as-alpha';
      // Written in v1, with a field v1alpha1 cannot express (paused): it travels in an annotation.
      const created = await createPipeline(namespace, pipeline(name, { runnerClassName: 'fast', replicas: 3, paused: true }));

      // The cells come from the v1alpha1 object's paths (spec.runnerClass, spec.parallelism): read at v1's paths they would be empty.
      // By name: the other tests of this version create Pipelines in the same namespace concurrently.
      const printed = table((await kubectlOk(expect, 'get', 'pipelines.v1alpha1.cairn.dev', name)).stdout);
      expect(printed).toEqual([pipelineHeader, [name, 'fast', '3', '', '', expect.stringMatching(/^\d+s$/)]]);

      const object = parseYaml((await kubectlOk(expect, 'get', 'pipelines.v1alpha1.cairn.dev', name, '-o', 'yaml')).stdout) as ServedPipeline;
      expect(object).toMatchObject({ apiVersion: 'cairn.dev/v1alpha1', kind: 'Pipeline', metadata: { name, uid: created.metadata.uid } });
      expect(object.spec).toEqual({ runnerClass: 'fast', parallelism: 3, steps: [{ name: 'fetch', image: 'alpine:3.20', run: 'echo hi' }] });
      expect(object.metadata.annotations).toEqual({ [specAnnotation]: JSON.stringify({ paused: true }) });
    });

    it('apply -f of a v1alpha1 manifest stores it in v1: get -o yaml shows replicas, runnerClassName and command sh -c', async ({ expect }) => {
      const name = 'applied-alpha';
      const manifest = alphaPipeline(name, { runnerClass: 'standard', parallelism: 2, run: 'echo one' });
      const file = await manifestFile(name, manifest);
      expect((await kubectlOk(expect, 'apply', '-f', file)).stdout.trim()).toBe(`pipeline.cairn.dev/${name} created`);

      // The preferred version, v1, is what `kubectl get pipeline` reads.
      const read = async (): Promise<ServedPipeline> => parseYaml((await kubectlOk(expect, 'get', 'pipeline', name, '-o', 'yaml')).stdout) as ServedPipeline;
      const v1 = await read();
      expect(v1).toMatchObject({ apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name } });
      expect(v1.spec).toEqual({
        runnerClassName: 'standard',
        replicas: 2,
        steps: [{ name: 'fetch', image: 'alpine:3.20', command: ['sh', '-c', 'echo one'] }],
      });
      // kubectl's last-applied annotation holds the manifest as sent; no conversion annotation is stored.
      expect(Object.keys(v1.metadata.annotations ?? {})).toEqual(['kubectl.kubernetes.io/last-applied-configuration']);
      expect(JSON.parse(v1.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration'])).toMatchObject({ apiVersion: 'cairn.dev/v1alpha1' });

      // A changed v1alpha1 manifest is a patch computed against the v1alpha1 object; it lands in v1 too.
      const changed = await manifestFile(name, alphaPipeline(name, { runnerClass: 'standard', parallelism: 4, run: 'echo two' }));
      expect((await kubectlOk(expect, 'apply', '-f', changed)).stdout.trim()).toBe(`pipeline.cairn.dev/${name} configured`);
      expect((await read()).spec).toEqual({
        runnerClassName: 'standard',
        replicas: 4,
        steps: [{ name: 'fetch', image: 'alpine:3.20', command: ['sh', '-c', 'echo two'] }],
      });
      expect((await kubectlOk(expect, 'apply', '-f', changed)).stdout.trim()).toBe(`pipeline.cairn.dev/${name} unchanged`);
    });

    it('explain pipelines --api-version=cairn.dev/v1beta1 shows v1’s fields; v1alpha1 shows parallelism, runnerClass and run', async ({ expect }) => {
      const beta = (await kubectlOk(expect, 'explain', 'pipelines', '--api-version=cairn.dev/v1beta1')).stdout;
      expect(beta).toMatch(/^GROUP:\s+cairn\.dev$/m);
      expect(beta).toMatch(/^KIND:\s+Pipeline$/m);
      expect(beta).toMatch(/^VERSION:\s+v1beta1$/m);
      expect(explainedFields(beta)).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
      const betaSpec = (await kubectlOk(expect, 'explain', 'pipelines.spec', '--api-version=cairn.dev/v1beta1')).stdout;
      expect(betaSpec).toMatch(/^VERSION:\s+v1beta1$/m);
      expect(explainedFields(betaSpec)).toEqual(['paused', 'replicas', 'runnerClassName', 'steps']);

      const alphaSpec = (await kubectlOk(expect, 'explain', 'pipelines.spec', '--api-version=cairn.dev/v1alpha1')).stdout;
      expect(alphaSpec).toMatch(/^VERSION:\s+v1alpha1$/m);
      expect(alphaSpec).toMatch(/^ {2}parallelism\t<integer>$/m);
      expect(explainedFields(alphaSpec)).toEqual(['parallelism', 'runnerClass', 'steps']);
      const alphaSteps = (await kubectlOk(expect, 'explain', 'pipelines.spec.steps', '--api-version=cairn.dev/v1alpha1')).stdout;
      expect(explainedFields(alphaSteps)).toEqual(['image', 'name', 'run']);
    });

    it('apply --server-side of a v1beta1 manifest over a v1 object: its managedFields entry is v1beta1, another manager conflicts until --force-conflicts', async ({
      expect,
    }) => {
      const name = 'server-applied';
      const created = pipeline(name, { replicas: 1 });
      expect((await kubectlOk(expect, 'create', '-f', await manifestFile(`${name}-v1`, created))).stdout.trim()).toBe(`pipeline.cairn.dev/${name} created`);

      // Fields kubectl-create does not own, so the first apply takes them without a conflict.
      const beta = { apiVersion: 'cairn.dev/v1beta1', kind: 'Pipeline', metadata: { name, labels: { applied: 'v1beta1' } }, spec: { paused: true } };
      const applied = await kubectlOk(expect, 'apply', '--server-side', '-f', await manifestFile(`${name}-v1beta1`, beta));
      expect(applied.stdout.trim()).toBe(`pipeline.cairn.dev/${name} serverside-applied`);
      const afterApply = await stored(namespace, name);
      expect(afterApply.spec).toMatchObject({ paused: true, replicas: 1, runnerClassName: 'standard' });
      expect(afterApply.metadata.labels).toEqual({ applied: 'v1beta1' });
      // The applier's entry is in the version it applied in; kubectl-create's stays in v1.
      const managers = (object: ServedPipeline) => Object.fromEntries((object.metadata.managedFields ?? []).map((entry) => [entry.manager, entry]));
      expect(managers(afterApply)).toEqual({
        kubectl: {
          manager: 'kubectl',
          operation: 'Apply',
          apiVersion: 'cairn.dev/v1beta1',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:labels': { 'f:applied': {} } }, 'f:spec': { 'f:paused': {} } },
          time: expect.any(String),
        },
        'kubectl-create': expect.objectContaining({ operation: 'Update', apiVersion: 'cairn.dev/v1' }),
      });

      // Another field manager, applying in v1, wants paused the other way: a conflict with the v1beta1 applier, nothing written.
      const other = { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name }, spec: { paused: false } };
      const otherFile = await manifestFile(`${name}-other`, other);
      const conflict = await kubectlExits(expect, 1, 'apply', '--server-side', '--field-manager=other', '-f', otherFile);
      expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .spec.paused');
      expect((await stored(namespace, name)).spec.paused).toBe(true);

      const forced = await kubectlOk(expect, 'apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', otherFile);
      expect(forced.stdout.trim()).toBe(`pipeline.cairn.dev/${name} serverside-applied`);
      const afterForce = await stored(namespace, name);
      expect(afterForce.spec.paused).toBe(false);
      // Forcing moves spec.paused to the other manager; the v1beta1 applier keeps its label.
      expect(managers(afterForce).other).toMatchObject({ operation: 'Apply', apiVersion: 'cairn.dev/v1', fieldsV1: { 'f:spec': { 'f:paused': {} } } });
      expect(managers(afterForce).kubectl).toMatchObject({ apiVersion: 'cairn.dev/v1beta1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:applied': {} } } } });
      expect(managers(afterForce).kubectl.fieldsV1).not.toHaveProperty('f:spec');
    });
  });
});
