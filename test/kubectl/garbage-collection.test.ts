/**
 * kubectl 1.27 and 1.33 deleting with each cascade against a standalone Cairn, whose
 * garbage collector finishes what kube-controller-manager's would: `delete` returns for
 * the default (background), `--cascade=foreground` and `--cascade=orphan`, with and
 * without dependents; a RunnerClass deleted in foreground takes the Pipelines naming it
 * as owner before it goes; `kubectl wait --for=delete` sees an owner go once its
 * dependents have. Each version works in a namespace and HOME of its own, on RunnerClasses
 * named after it, so the versions run concurrently.
 */
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it, type ExpectStatic } from 'vitest';
import { eventually } from '../support/eventually.js';
import { kubectlAvailable, runKubectl, versionedKubectl, type RunResult } from '../support/kubectl.js';
import { pipeline, runnerClass, sharedTestServer } from '../support/test-server.js';

const runnerClasses = '/apis/cairn.dev/v1/runnerclasses';
const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

describe.runIf(kubectlAvailable)('kubectl delete with each cascade, finished by the garbage collector (needs kubectl on PATH)', () => {
  const srv = sharedTestServer({ backend: 'pglite', garbageCollector: true });

  describe.concurrent.each([27, 33].map((minor) => ({ minor })))('kubectl.1.$minor', ({ minor }) => {
    const binary = versionedKubectl(minor);
    const namespace = `gc-v1${minor}`;
    const pipelines = `/apis/cairn.dev/v1/namespaces/${namespace}/pipelines`;
    let home = '';

    const kubectlOk = async (expect: ExpectStatic, ...args: string[]): Promise<RunResult> => {
      const result = await runKubectl(binary, [...args, '-n', namespace], { ...process.env, KUBECONFIG: srv().kubeconfigPath, HOME: home });
      expect(result.code, `kubectl.1.${minor} ${args.join(' ')}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(0);
      return result;
    };
    const status = async (path: string) => (await srv().request('GET', path)).status;

    /** A RunnerClass named for this version, and `count` Pipelines naming it as their class and their blocking owner. */
    async function ownerWithDependents(expect: ExpectStatic, name: string, count: number, finalizers?: string[]): Promise<string[]> {
      const owner = await srv().request('POST', runnerClasses, { body: runnerClass(name) });
      expect(owner.status, owner.text).toBe(201);
      const reference = { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', name, uid: owner.json.metadata.uid, blockOwnerDeletion: true };
      const names = Array.from({ length: count }, (_, i) => `${name}-${i}`);
      for (const dependent of names) {
        const body = pipeline(dependent, { runnerClassName: name });
        const created = await srv().request('POST', pipelines, { body: { ...body, metadata: { ...body.metadata, ownerReferences: [reference], finalizers } } });
        expect(created.status, created.text).toBe(201);
      }
      return names;
    }

    beforeAll(async () => {
      accessSync(binary, constants.X_OK);
      home = await mkdtemp(join(tmpdir(), `cairn-kubectl-gc-${minor}-`));
    });
    afterAll(async () => {
      if (home !== '') await rm(home, { recursive: true, force: true });
    });

    it.for(['background', 'foreground', 'orphan'])(
      'delete --cascade=%s of a Pipeline without dependents returns, the Pipeline gone',
      async (cascade, { expect }) => {
        const name = `alone-${cascade}`;
        expect((await srv().request('POST', pipelines, { body: pipeline(name) })).status).toBe(201);
        const deleted = await kubectlOk(expect, 'delete', 'pipeline', name, `--cascade=${cascade}`);
        expect(deleted.stdout.trim()).toBe(`pipeline.cairn.dev "${name}" deleted`);
        expect(await status(`${pipelines}/${name}`)).toBe(404);
      },
    );

    it('delete of a RunnerClass (background, the default) returns at once; the Pipelines it owns follow', async ({ expect }) => {
      const name = `v1${minor}-background`;
      const dependents = await ownerWithDependents(expect, name, 2);
      await kubectlOk(expect, 'delete', 'runnerclass', name);
      expect(await status(`${runnerClasses}/${name}`)).toBe(404);
      for (const dependent of dependents) await eventually(`${dependent} deleted`, 15_000, async () => (await status(`${pipelines}/${dependent}`)) === 404);
    });

    it('delete --cascade=foreground of a RunnerClass takes the Pipelines naming it as owner before it returns', async ({ expect }) => {
      const name = `v1${minor}-foreground`;
      const dependents = await ownerWithDependents(expect, name, 2);
      await kubectlOk(expect, 'delete', 'runnerclass', name, '--cascade=foreground');
      // kubectl waited for the owner to go, and the owner went after its blocking dependents.
      expect(await status(`${runnerClasses}/${name}`)).toBe(404);
      for (const dependent of dependents) expect(await status(`${pipelines}/${dependent}`)).toBe(404);
    });

    it('delete --cascade=orphan of a RunnerClass returns; the Pipelines stay, without their ownerReference', async ({ expect }) => {
      const name = `v1${minor}-orphan`;
      const dependents = await ownerWithDependents(expect, name, 2);
      await kubectlOk(expect, 'delete', 'runnerclass', name, '--cascade=orphan');
      expect(await status(`${runnerClasses}/${name}`)).toBe(404);
      for (const dependent of dependents) {
        const kept = await srv().request('GET', `${pipelines}/${dependent}`);
        expect(kept.status).toBe(200);
        expect(kept.json.metadata.ownerReferences).toBeUndefined();
      }
    });

    it('wait --for=delete sees a RunnerClass deleted in foreground go once its held dependent goes', async ({ expect }) => {
      const name = `v1${minor}-wait`;
      // The dependent's own finalizer holds it (and so its owner) until the test lets go.
      const [dependent] = await ownerWithDependents(expect, name, 1, ['cairn.dev/hold']);
      await kubectlOk(expect, 'delete', 'runnerclass', name, '--cascade=foreground', '--wait=false');
      const waiting = kubectlOk(expect, 'wait', '--for=delete', `runnerclass/${name}`, '--timeout=30s');
      await eventually(`${dependent} being deleted`, 15_000, async () =>
        Boolean((await srv().request('GET', `${pipelines}/${dependent}`)).json.metadata.deletionTimestamp),
      );
      expect(await status(`${runnerClasses}/${name}`)).toBe(200);
      await srv().request('PATCH', `${pipelines}/${dependent}`, { body: { metadata: { finalizers: null } }, headers: mergePatch });
      await waiting;
      expect(await status(`${runnerClasses}/${name}`)).toBe(404);
    });
  });
});
