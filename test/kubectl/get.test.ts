/**
 * `kubectl get` and `kubectl describe` as every kubectl from 1.27 to 1.33 prints Cairn's
 * answers: the server's printer columns (Table), the list output formats, label and field
 * selectors, chunked lists, watches and describe. One PGlite server serves every version;
 * each version works in its own namespaces with its own HOME, so neither objects nor
 * discovery caches leak between versions, and the versions run concurrently.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it, type ExpectStatic } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { kubectlAvailable, kubectlMinors, rows, runKubectl, versionedKubectl, waitFor, type RunResult } from '../support/kubectl.js';
import { pipeline, runnerClass, sharedTestServer } from '../support/test-server.js';

/** The Pipelines seeded for every version, chosen so each selector below picks a different subset. */
const seeded = [
  { name: 'alpha', runnerClassName: 'standard', replicas: 1, labels: { app: 'x', tier: 'a' } },
  { name: 'beta', runnerClassName: 'fast', replicas: 2, labels: { app: 'y', tier: 'b' } },
  { name: 'gamma', runnerClassName: 'standard', replicas: 3, labels: { app: 'x', tier: 'c' } },
] as const;
type SeededName = (typeof seeded)[number]['name'];

const seededManifest = (p: (typeof seeded)[number]) => pipeline(p.name, { runnerClassName: p.runnerClassName, replicas: p.replicas }, p.labels);

const pipelineHeader = ['NAME', 'RUNNERCLASS', 'REPLICAS', 'READY', 'PHASE', 'AGE'];

/** kubectl prints the age of an object less than 2 minutes old in seconds. */
const anAge = (expect: ExpectStatic) => expect.stringMatching(/^\d+s$/);

/** The cells of a seeded Pipeline's row. Status is unset: Cairn sends null for READY and PHASE, which kubectl prints as nothing. */
const pipelineCells = (expect: ExpectStatic, name: SeededName) => {
  const p = seeded.find((candidate) => candidate.name === name)!;
  return [p.name, p.runnerClassName, String(p.replicas), '', '', anAge(expect)];
};

/** Arguments of `kubectl get` (namespace added) that print the Pipeline table, and the seeded Pipelines each lists. */
const tableCases: readonly { readonly args: readonly string[]; readonly names: readonly SeededName[] }[] = [
  { args: ['pipelines'], names: ['alpha', 'beta', 'gamma'] },
  // No column has priority 1, so wide shows the same columns.
  { args: ['pipelines', '-o', 'wide'], names: ['alpha', 'beta', 'gamma'] },
  { args: ['pl'], names: ['alpha', 'beta', 'gamma'] },
  { args: ['pipeline', 'beta'], names: ['beta'] },
  { args: ['pipelines', '-l', 'app=x'], names: ['alpha', 'gamma'] },
  { args: ['pipelines', '-l', 'tier in (a,b)'], names: ['alpha', 'beta'] },
  { args: ['pipelines', '--field-selector', 'metadata.name=gamma'], names: ['gamma'] },
  { args: ['pipelines', '--field-selector', 'spec.runnerClassName=fast'], names: ['beta'] },
];

/**
 * Splits kubectl's table output into cells at the header's column offsets. Unlike `rows()`
 * this keeps empty cells in place, so an unset READY cannot pass for PHASE.
 */
function table(output: string): string[][] {
  const lines = output.split('\n').filter((line) => line.trim() !== '');
  const starts = [...(lines[0] ?? '').matchAll(/\S+/g)].map((match) => match.index);
  return lines.map((line) => starts.map((start, i) => line.slice(start, starts[i + 1]).trim()));
}

/** Matches the line of a watch's output that starts with `name`. */
const rowOf = (name: string) => new RegExp(`^${name}\\s`, 'm');

/** A running `kubectl get -w`, its output collected as it arrives. */
interface Watch {
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves once `predicate` holds; rejects as soon as kubectl exits, or after 15 s. */
  until(predicate: () => boolean): Promise<void>;
  /** Stops kubectl and waits until it is gone. */
  stop(): Promise<void>;
}

function startWatch(binary: string, args: readonly string[], env: NodeJS.ProcessEnv): Watch {
  const child = spawn(binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let exit: string | undefined;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.on('exit', (code, signal) => (exit = `exited with ${code ?? signal}`));
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const shown = () => `${binary} ${args.join(' ')}: stdout ${JSON.stringify(stdout)}, stderr ${JSON.stringify(stderr)}${exit ? `, ${exit}` : ''}`;
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    async until(predicate) {
      await waitFor(() => predicate() || exit !== undefined, 15_000, shown);
      if (!predicate()) throw new Error(`kubectl ended early: ${shown()}`);
    },
    async stop() {
      child.kill('SIGTERM');
      await closed;
    },
  };
}

describe.runIf(kubectlAvailable)('kubectl get and describe across versions (needs kubectl on PATH)', () => {
  const srv = sharedTestServer({ backend: 'pglite' });
  // The class some Pipelines name must exist before they are created.
  beforeAll(async () => {
    await srv().request('POST', '/apis/cairn.dev/v1/runnerclasses', { body: runnerClass('fast') });
  });

  /** Creates an object through the API, as another client would. */
  const create = async (path: string, body: unknown): Promise<void> => {
    const response = await srv().request('POST', path, { body });
    if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${response.text}`);
  };
  const createPipeline = (namespace: string, manifest: unknown) => create(`/apis/cairn.dev/v1/namespaces/${namespace}/pipelines`, manifest);

  describe.concurrent.each(kubectlMinors.map((minor) => ({ minor })))('kubectl.1.$minor', ({ minor }) => {
    const binary = versionedKubectl(minor);
    // Namespaces need not exist in Cairn. Only the watch tests create objects, each in a namespace
    // of its own, so every other test reads this one unchanged and the tests can run concurrently.
    const namespace = `get-v1${minor}`;
    const runnerClass = { name: `runners-v1${minor}`, image: `registry.example/runner:1.${minor}`, maxReplicas: minor };
    let home = '';

    const env = (): NodeJS.ProcessEnv => ({ ...process.env, KUBECONFIG: srv().kubeconfigPath, HOME: home });

    /** Runs kubectl and fails the test, showing its output, unless it exits 0. */
    const kubectlOk = async (expect: ExpectStatic, ...args: string[]): Promise<RunResult> => {
      const result = await runKubectl(binary, args, env());
      expect(result.code, `kubectl.1.${minor} ${args.join(' ')}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(0);
      return result;
    };

    beforeAll(async () => {
      // Fail loudly (rather than skip) when a versioned binary is missing.
      accessSync(binary, constants.X_OK);
      // A fresh HOME: the discovery cache under ~/.kube starts empty.
      home = await mkdtemp(join(tmpdir(), `cairn-kubectl-get-${minor}-`));
      await Promise.all(seeded.map((p) => createPipeline(namespace, seededManifest(p))));
      await create('/apis/cairn.dev/v1/runnerclasses', {
        apiVersion: 'cairn.dev/v1',
        kind: 'RunnerClass',
        metadata: { name: runnerClass.name },
        spec: { image: runnerClass.image, maxReplicas: runnerClass.maxReplicas },
      });
    });

    afterAll(async () => {
      if (home !== '') await rm(home, { recursive: true, force: true });
    });

    it.for(tableCases.map((c) => ({ ...c, command: c.args.join(' ') })))('get $command prints the server columns', async ({ args, names }, { expect }) => {
      const { stdout } = await kubectlOk(expect, 'get', ...args, '-n', namespace);
      expect(table(stdout)).toEqual([pipelineHeader, ...names.map((name) => pipelineCells(expect, name))]);
    });

    it('get --chunk-size=2 pages through all Pipelines with a continue token', async ({ expect }) => {
      // -v=6 logs each request's URL (as `GET https://…` up to 1.29, `url="https://…"` from 1.30).
      const { stdout, stderr } = await kubectlOk(expect, 'get', 'pipelines', '-n', namespace, '--chunk-size=2', '-v=6');
      expect(table(stdout)).toEqual([pipelineHeader, ...seeded.map((p) => pipelineCells(expect, p.name))]);
      const queries = [...stderr.matchAll(new RegExp(`/namespaces/${namespace}/pipelines\\?([^\\s"]*)`, 'g'))].map((match) => new URLSearchParams(match[1]));
      expect(queries.map((query) => query.get('limit'))).toEqual(['2', '2']);
      expect(queries[0]?.has('continue')).toBe(false);
      expect(queries[1]?.get('continue')).toMatch(/.+/);
    });

    it('get pipelines -A adds the NAMESPACE column', async ({ expect }) => {
      const printed = table((await kubectlOk(expect, 'get', 'pipelines', '-A')).stdout);
      expect(printed[0]).toEqual(['NAMESPACE', ...pipelineHeader]);
      // Other versions' Pipelines are listed too; this version's are exactly the seeded ones.
      expect(printed.filter((row) => row[0] === namespace)).toEqual(seeded.map((p) => [namespace, ...pipelineCells(expect, p.name)]));
    });

    it('get rc prints the RunnerClass columns', async ({ expect }) => {
      const printed = table((await kubectlOk(expect, 'get', 'rc')).stdout);
      expect(printed[0]).toEqual(['NAME', 'IMAGE', 'MAXREPLICAS', 'AGE']);
      expect(printed.filter((row) => row[0] === runnerClass.name)).toEqual([
        [runnerClass.name, runnerClass.image, String(runnerClass.maxReplicas), anAge(expect)],
      ]);
    });

    it('get -o name prints resource/name lines', async ({ expect }) => {
      const { stdout } = await kubectlOk(expect, 'get', 'pipelines', '-n', namespace, '-o', 'name');
      expect(stdout.trim().split('\n')).toEqual(seeded.map((p) => `pipeline.cairn.dev/${p.name}`));
    });

    it.for([
      { format: 'yaml', parse: (text: string): unknown => parseYaml(text) },
      { format: 'json', parse: (text: string): unknown => JSON.parse(text) },
    ])('get -o $format prints a List of the full objects', async ({ format, parse }, { expect }) => {
      const list = parse((await kubectlOk(expect, 'get', 'pipelines', '-n', namespace, '-o', format)).stdout) as {
        kind: string;
        apiVersion: string;
        items: unknown[];
      };
      expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List' });
      expect(list.items).toEqual(
        seeded.map((p) => {
          const manifest = seededManifest(p);
          return {
            ...manifest,
            metadata: expect.objectContaining({ ...manifest.metadata, namespace, uid: expect.any(String), resourceVersion: expect.any(String) }),
          };
        }),
      );
    });

    it('describe pipeline prints the object although Cairn serves no events', async ({ expect }) => {
      // kubectl also asks /api/v1/namespaces/NS/events, which Cairn does not serve: the 404 must
      // leave the output intact, show no events and print no error. From 1.32 that request
      // accepts protobuf first, so the 404's Status comes back in protobuf, which kubectl reads.
      const { stdout, stderr } = await kubectlOk(expect, 'describe', 'pipeline', 'gamma', '-n', namespace);
      expect(stderr).toBe('');
      for (const line of [
        /^Name:\s+gamma$/m,
        new RegExp(`^Namespace:\\s+${namespace}$`, 'm'),
        /^Labels:\s+app=x\n\s+tier=c$/m,
        /^Kind:\s+Pipeline$/m,
        /^Spec:\n\s+Replicas:\s+3\n\s+Runner Class Name:\s+standard\n\s+Steps:$/m,
        /^\s+Name:\s+fetch$/m,
        /^Events:\s+<none>$/m,
      ]) {
        expect(stdout).toMatch(line);
      }
    });

    /**
     * Runs `kubectl get pipelines -w` plus `flags` in a namespace of its own holding the Pipeline
     * `existing`, creates the Pipeline `added` once `ready` holds, and returns what kubectl
     * printed by the time `added` showed up.
     */
    const watchAddition = async (suffix: string, flags: readonly string[], ready: (watch: Watch) => boolean): Promise<string> => {
      const watchNamespace = `${namespace}-${suffix}`;
      await createPipeline(watchNamespace, pipeline('existing'));
      const watch = startWatch(binary, ['get', 'pipelines', '-n', watchNamespace, '-w', ...flags], env());
      try {
        await watch.until(() => ready(watch));
        await createPipeline(watchNamespace, pipeline('added', { replicas: 4 }));
        await watch.until(() => rowOf('added').test(watch.stdout()));
        return watch.stdout();
      } finally {
        await watch.stop();
      }
    };

    it('get -w prints the existing rows, then a Pipeline created meanwhile', async ({ expect }) => {
      const printed = await watchAddition('watch', [], (watch) => rowOf('existing').test(watch.stdout()));
      // Rows printed one event at a time are aligned separately: split on whitespace (empty cells vanish).
      expect(rows(printed)).toEqual([pipelineHeader, ['existing', 'standard', '1', anAge(expect)], ['added', 'standard', '4', anAge(expect)]]);
    });

    it('get -w --watch-only prints only a Pipeline created meanwhile', async ({ expect }) => {
      // Nothing is printed before an event. -v=6 logs the watch request once it is answered; kubectl
      // watches from its list's resourceVersion, so a Pipeline created after that is an event.
      const printed = await watchAddition('watch-only', ['--watch-only', '-v=6'], (watch) => /\/pipelines\?[^\s"]*watch=true/.test(watch.stderr()));
      expect(rows(printed)).toEqual([pipelineHeader, ['added', 'standard', '4', anAge(expect)]]);
    });
  });
});
