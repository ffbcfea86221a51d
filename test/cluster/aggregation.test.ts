/**
 * End to end through the aggregation layer: Cairn registered with a real kube-apiserver
 * 1.34 (APIServices `v1.cairn.dev`, `v1beta1.cairn.dev` and `v1alpha1.cairn.dev`, an
 * ExternalName Service to the loopback host, the serving certificate verified for
 * `cairn-apiserver.cairn-system.svc` with the caBundle),
 * then kubectl 1.33 and @kubernetes/client-node talking only to kube-apiserver, which
 * proxies to Cairn with its front-proxy certificate and the user in `X-Remote-*` headers.
 *
 * Cairn delegates authentication and authorization to kube-apiserver (TokenReview,
 * SubjectAccessReview, NamespaceLifecycle), as in a cluster; the aggregator's own requests
 * name a user in `system:masters`, whom Cairn allows without a review.
 *
 * The cases run concurrently: the log follow has to outlast the request timeout of
 * kube-apiserver and of Cairn, both set to 10 s here (1 min by default) so that it need not
 * wait out a minute, and the others fit inside it.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CustomObjectsApi, KubeConfig, KubernetesObjectApi, Watch, type KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { cairnApiService, cairnApiServices, cairnNamespace, cairnService, startAggregatedCairn, type AggregatedCairn } from '../support/aggregated-cairn.js';
import { controlPlaneKubectl, startKubeControlPlane, type KubeControlPlane } from '../support/kube-control-plane.js';
import { kubectlAvailable, rows, waitFor, type RunResult } from '../support/kubectl.js';
import { pipeline, runnerClass } from '../support/test-server.js';
import { startWebhookServer } from '../support/webhook-server.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/default/pipelines';
const manifestsDir = join(import.meta.dirname, '..', '..', 'apiservice');

/** `--request-timeout` of kube-apiserver, which cuts every proxied request that is not long-running, and of Cairn. */
const requestTimeoutSeconds = 10;
/** How long the log is followed: past that timeout, with margin. */
const followMs = requestTimeoutSeconds * 1000 + 5_000;
const appendEveryMs = 2_000;

/** A kubectl that keeps running (`get -w`, a followed log): its output so far and how it ended. */
interface Streaming {
  readonly stdout: () => string;
  readonly exitCode: () => number | null | undefined;
  readonly shown: () => string;
  /** Ends it (SIGKILL) if it still runs, and waits for it. */
  stop(): Promise<void>;
}

describe.runIf(kubectlAvailable)('Cairn behind a real kube-apiserver’s aggregator (needs kubectl on PATH)', () => {
  let plane: KubeControlPlane;
  let cairn: AggregatedCairn;

  beforeAll(async () => {
    plane = await startKubeControlPlane(inject('goPrograms'), { requestTimeout: `${requestTimeoutSeconds}s` });
    // Short cache TTLs, so a new RoleBinding takes effect within a second or two.
    cairn = await startAggregatedCairn(plane, { delegation: { cacheTtl: '500ms' }, args: [`--request-timeout=${requestTimeoutSeconds}s`] });
  }, 240_000);

  afterAll(async () => {
    await cairn?.stop();
    await plane?.stop();
  }, 60_000);

  /** Runs kubectl 1.33 against kube-apiserver. */
  const kubectl = (...args: string[]): Promise<RunResult> => plane.kubectl(args);
  /** Runs kubectl and throws, with its output and the servers' logs, unless it exits 0. */
  const kubectlOk = async (...args: string[]): Promise<RunResult> => {
    const result = await kubectl(...args);
    if (result.code !== 0) {
      throw new Error(
        `kubectl ${args.join(' ')} exited ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}\n${await plane.logTail()}\n${cairn.logTail()}`,
      );
    }
    return result;
  };
  /** Writes `object` as a manifest file and returns its path. */
  const manifest = async (name: string, object: unknown): Promise<string> => {
    const file = join(plane.directory, `${name}.json`);
    await writeFile(file, JSON.stringify(object));
    return file;
  };
  /** Runs kubectl until `done` holds of its result or `timeoutMs` ran out; returns the last result. */
  const kubectlUntil = async (done: (result: RunResult) => boolean, timeoutMs: number, ...args: string[]): Promise<RunResult> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const result = await kubectl(...args);
      if (done(result) || Date.now() > deadline) return result;
      await sleep(250);
    }
  };
  /** Starts kubectl without a client-side request timeout, for a stream. */
  const streamKubectl = (...args: string[]): Streaming => {
    const child = spawn(controlPlaneKubectl(), args, { env: plane.kubectlEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let exitCode: number | null | undefined;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<void>((resolve) => child.on('close', (code) => ((exitCode = code), resolve())));
    return {
      stdout: () => stdout,
      exitCode: () => exitCode,
      shown: () => `kubectl ${args.join(' ')}: stdout ${JSON.stringify(stdout)}, stderr ${JSON.stringify(stderr)}, exit ${exitCode}`,
      async stop() {
        if (exitCode === undefined) child.kill('SIGKILL');
        await exited;
      },
    };
  };

  describe.concurrent('with kubectl and client-node talking only to kube-apiserver', () => {
    it(
      'follows the log through the aggregator for longer than kube-apiserver’s and Cairn’s request timeout, until the Pipeline is deleted',
      async ({ expect }) => {
        const name = 'followed';
        const logPath = `${pipelines}/${name}/log`;
        await kubectlOk('create', '-f', await manifest(name, pipeline(name)));
        const follower = streamKubectl('get', '--raw', `${logPath}?follow=true`);
        const started = Date.now();
        try {
          // A line every few seconds, each seen by the follower soon after; the last ones after the request timeout.
          for (let i = 0; Date.now() - started < followMs; i++) {
            const line = `line ${i} at ${Math.round((Date.now() - started) / 1000)} s`;
            await kubectlOk('create', '--raw', logPath, '-f', await manifest(`${name}-append`, { step: 'fetch', lines: [line] }));
            // A bound for a loaded 2-core box, not a latency target: delivery takes milliseconds.
            await waitFor(() => follower.stdout().includes(`${line}\n`) || follower.exitCode() !== undefined, 20_000, follower.shown);
            expect(follower.exitCode(), follower.shown()).toBeUndefined();
            await sleep(appendEveryMs);
          }
          // Past the request timeout, the stream is still open and has every line in order.
          expect(Date.now() - started).toBeGreaterThan(followMs);
          expect(follower.exitCode(), follower.shown()).toBeUndefined();
          const seen = follower.stdout().trimEnd().split('\n');
          // However slowly kubectl ran, lines were appended before and after the request timeout.
          expect(seen.length).toBeGreaterThanOrEqual(3);
          expect(
            seen.every((line, i) => line.startsWith(`line ${i} at `)),
            follower.shown(),
          ).toBe(true);
          expect(Number(/at (\d+) s$/.exec(seen.at(-1)!)?.[1])).toBeGreaterThanOrEqual(requestTimeoutSeconds);

          const deleted = await kubectlOk('delete', 'pipeline', name);
          expect(deleted.stdout.trim()).toBe(`pipeline.cairn.dev "${name}" deleted`);
          await waitFor(() => follower.exitCode() !== undefined, 15_000, follower.shown);
          expect(follower.exitCode(), follower.shown()).toBe(0);
        } finally {
          await follower.stop();
        }
      },
      followMs + 45_000,
    );

    it('impersonated with kubectl --as=bob: Forbidden naming bob, the verb and the resource until RoleBindings to cairn-view, then cairn-edit, grant it', async ({
      expect,
    }) => {
      const namespace = 'bobs';
      await kubectlOk('create', 'namespace', namespace);
      // The ClusterRoles as written. No kube-controller-manager runs here to aggregate them into view and edit: bob is bound to them directly.
      await kubectlOk('apply', '-f', join(manifestsDir, '13-aggregated-roles.yaml'));
      const asBob = ['--as=bob', '-n', namespace];
      const forbidden = (verb: string, prefix = '') =>
        `Error from server (Forbidden): ${prefix}pipelines.cairn.dev is forbidden: User "bob" cannot ${verb} resource "pipelines" in API group "cairn.dev" in the namespace "${namespace}"`;

      // kube-apiserver's own authorization filter, which runs before it proxies, gives this first 403 from the
      // same RBAC; once bob is granted, the request reaches Cairn, which asks SubjectAccessReview about bob.
      const refused = await kubectl(...asBob, 'get', 'pipelines');
      expect(refused.code, refused.stdout).toBe(1);
      expect(refused.stderr.trim()).toBe(forbidden('list'));

      await kubectlOk('-n', namespace, 'create', 'rolebinding', 'bob-view', '--clusterrole=cairn-view', '--user=bob');
      const listed = await kubectlUntil((result) => result.code === 0, 15_000, ...asBob, 'get', 'pipelines');
      expect(listed.code, `${listed.stderr}\n${cairn.logTail()}`).toBe(0);
      expect(listed.stderr.trim()).toBe(`No resources found in ${namespace} namespace.`);

      // Reading is not writing.
      const name = 'bobs-pipeline';
      const file = await manifest(name, pipeline(name));
      const notCreated = await kubectl(...asBob, 'create', '-f', file);
      expect(notCreated.code, notCreated.stdout).toBe(1);
      expect(notCreated.stderr.trim()).toBe(forbidden('create', `error when creating "${file}": `));

      await kubectlOk('-n', namespace, 'create', 'rolebinding', 'bob-edit', '--clusterrole=cairn-edit', '--user=bob');
      const created = await kubectlUntil((result) => result.code === 0, 15_000, ...asBob, 'create', '-f', file);
      expect(created.code, `${created.stderr}\n${cairn.logTail()}`).toBe(0);
      expect(created.stdout.trim()).toBe(`pipeline.cairn.dev/${name} created`);
      expect(rows((await kubectlOk(...asBob, 'get', 'pipelines', '--no-headers')).stdout).map((row) => row[0])).toEqual([name]);
      // Deleting is edit's too; getting the scale subresource is view's.
      expect((await kubectlOk(...asBob, 'get', 'pipeline', name, '--subresource=scale', '-o', 'jsonpath={.spec.replicas}')).stdout).toBe('1');
      expect((await kubectlOk(...asBob, 'delete', 'pipeline', name)).stdout.trim()).toBe(`pipeline.cairn.dev "${name}" deleted`);
      // The history through the aggregated path, which view grants (pipelines/history): each write's user is the one
      // kube-apiserver forwarded in X-Remote-User (bob, impersonated), its manager kubectl's, and the deleted object's stays.
      const historyPath = `/apis/cairn.dev/v1/namespaces/${namespace}/pipelines/${name}/history`;
      const history = JSON.parse((await kubectlOk(...asBob, 'get', '--raw', historyPath)).stdout);
      expect(history.kind).toBe('RevisionList');
      expect(history.items.map((i: { operation: string; fieldManager: string; user: string }) => [i.operation, i.fieldManager, i.user])).toEqual([
        ['delete', '', 'bob'],
        ['create', 'kubectl-create', 'bob'],
      ]);
      expect(history.items[1].object).toMatchObject({ apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name, namespace } });
    });

    it('refuses to create a Pipeline in a namespace the cluster does not have, as kube’s NamespaceLifecycle does, and creates it once the namespace exists', async ({
      expect,
    }) => {
      const namespace = 'nowhere';
      const name = 'homeless';
      const file = await manifest(name, pipeline(name));
      const refused = await kubectl('-n', namespace, 'create', '-f', file);
      expect(refused.code, refused.stdout).toBe(1);
      expect(refused.stderr.trim()).toBe(`Error from server (NotFound): error when creating "${file}": namespaces "${namespace}" not found`);
      const none = await kubectl('-n', namespace, 'get', 'pipelines');
      expect(none.stderr.trim()).toBe(`No resources found in ${namespace} namespace.`);

      await kubectlOk('create', 'namespace', namespace);
      expect((await kubectlOk('-n', namespace, 'create', '-f', file)).stdout.trim()).toBe(`pipeline.cairn.dev/${name} created`);
      await kubectlOk('-n', namespace, 'delete', 'pipeline', name);
    });

    it('calls a ValidatingWebhookConfiguration stored in kube-apiserver, in the namespaces its namespaceSelector selects by their labels', async ({
      expect,
    }) => {
      const webhook = await startWebhookServer({ '/deny': () => ({ allowed: false, status: { code: 403, message: 'no pipelines in hooked namespaces' } }) });
      try {
        await kubectlOk('create', 'namespace', 'hooked');
        await kubectlOk('label', 'namespace', 'hooked', 'cairn-webhooks=on');
        const configuration = {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: 'cairn-aggregation-test' },
          webhooks: [
            {
              name: 'deny.cairn.test',
              clientConfig: { url: `${webhook.url}/deny`, caBundle: webhook.caBundle },
              rules: [{ operations: ['CREATE'], apiGroups: ['cairn.dev'], apiVersions: ['v1'], resources: ['pipelines'] }],
              namespaceSelector: { matchLabels: { 'cairn-webhooks': 'on' } },
              sideEffects: 'None',
              admissionReviewVersions: ['v1'],
            },
          ],
        };
        await kubectlOk('apply', '-f', await manifest('webhook-configuration', configuration));
        const file = await manifest('hooked', pipeline('hooked'));
        // Cairn learns of the configuration through its watch: moments after it was stored.
        const refused = await kubectlUntil((result) => result.code !== 0, 15_000, '-n', 'hooked', 'create', '-f', file);
        // The webhook's Status names no reason, so kubectl names none, as with kube-apiserver's own webhooks.
        expect(refused.stderr.trim()).toBe(
          `Error from server: error when creating "${file}": admission webhook "deny.cairn.test" denied the request: no pipelines in hooked namespaces`,
        );
        expect(webhook.received.get('/deny')?.at(-1)).toMatchObject({ namespace: 'hooked', operation: 'CREATE', userInfo: { username: 'cairn-admin' } });
        await kubectlOk('create', 'namespace', 'unhooked');
        expect((await kubectlOk('-n', 'unhooked', 'create', '-f', file)).stdout.trim()).toBe('pipeline.cairn.dev/hooked created');
      } finally {
        await kubectl('delete', 'validatingwebhookconfiguration', 'cairn-aggregation-test');
        await webhook.close();
      }
    });

    it('serves RunnerClasses named gpu:large and "Team A" through the aggregator, and RBAC resourceNames grants one of them', async ({ expect }) => {
      const names = ['gpu:large', 'Team A'];
      for (const name of names) {
        const created = await kubectlOk('create', '-f', await manifest(name.replace(/\W/g, '-'), runnerClass(name)));
        expect(created.stdout.trim()).toBe(`runnerclass.cairn.dev/${name} created`);
        expect((await kubectlOk('get', 'runnerclass', name, '-o', 'jsonpath={.metadata.name}')).stdout).toBe(name);
      }
      const asCarol = ['--as=carol'];
      const forbidden = (name: string) =>
        `Error from server (Forbidden): runnerclasses.cairn.dev "${name}" is forbidden: User "carol" cannot get resource "runnerclasses" in API group "cairn.dev" at the cluster scope`;
      expect((await kubectl(...asCarol, 'get', 'runnerclass', 'gpu:large')).stderr.trim()).toBe(forbidden('gpu:large'));

      // kube-apiserver authorizes the request before proxying it, and Cairn asks again with a SubjectAccessReview naming the RunnerClass.
      await kubectlOk('create', 'clusterrole', 'carol-gpu', '--verb=get', '--resource=runnerclasses.cairn.dev', '--resource-name=gpu:large');
      await kubectlOk('create', 'clusterrolebinding', 'carol-gpu', '--clusterrole=carol-gpu', '--user=carol');
      const granted = await kubectlUntil(
        (result) => result.code === 0,
        15_000,
        ...asCarol,
        'get',
        'runnerclass',
        'gpu:large',
        '-o',
        'jsonpath={.metadata.name}',
      );
      expect(granted.code, `${granted.stderr}\n${cairn.logTail()}`).toBe(0);
      expect(granted.stdout).toBe('gpu:large');
      const other = await kubectl(...asCarol, 'get', 'runnerclass', 'Team A');
      expect(other.code).toBe(1);
      expect(other.stderr.trim()).toBe(forbidden('Team A'));

      for (const name of names) expect((await kubectlOk('delete', 'runnerclass', name)).stdout.trim()).toBe(`runnerclass.cairn.dev "${name}" deleted`);
    });

    it('shows the APIServices Available, their Service an ExternalName, their caBundle the CA of Cairn’s certificate', async ({ expect }) => {
      const apiService = JSON.parse((await kubectlOk('get', 'apiservice', cairnApiService, '-o', 'json')).stdout);
      expect(apiService.spec).toMatchObject({
        group: 'cairn.dev',
        version: 'v1',
        service: { name: cairnService, namespace: cairnNamespace, port: cairn.server.port },
      });
      expect(apiService.spec.insecureSkipTLSVerify).toBeUndefined();
      expect(Buffer.from(apiService.spec.caBundle, 'base64').toString('utf8').trim()).toBe(cairn.server.pki.servingCaPem.trim());
      expect(apiService.status.conditions).toEqual([expect.objectContaining({ type: 'Available', status: 'True', reason: 'Passed' })]);
      // One per served version, each on the same Service with the same caBundle, each probed and Available on its own.
      const table = rows((await kubectlOk('get', 'apiservices', ...cairnApiServices)).stdout);
      expect(table[0]).toEqual(['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
      expect(
        table
          .slice(1)
          .map((row) => row.slice(0, 3))
          .sort(),
      ).toEqual([...cairnApiServices].sort().map((name) => [name, `${cairnNamespace}/${cairnService}`, 'True']));
      const all = JSON.parse((await kubectlOk('get', 'apiservices', ...cairnApiServices, '-o', 'json')).stdout) as { items: { spec: { caBundle: string } }[] };
      expect(new Set(all.items.map((item) => item.spec.caBundle))).toEqual(new Set([apiService.spec.caBundle]));
      const service = JSON.parse((await kubectlOk('-n', cairnNamespace, 'get', 'service', cairnService, '-o', 'json')).stdout);
      expect(service.spec).toMatchObject({ type: 'ExternalName', externalName: 'localhost' });
    });

    it('lists cairn.dev in kubectl api-resources and api-versions (aggregated discovery)', async ({ expect }) => {
      const resources = rows((await kubectlOk('api-resources', '--api-group=cairn.dev')).stdout);
      expect(resources[0]).toEqual(['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
      expect(resources.slice(1).sort()).toEqual([
        ['pipelines', 'pl', 'cairn.dev/v1', 'true', 'Pipeline'],
        ['runnerclasses', 'rc', 'cairn.dev/v1', 'false', 'RunnerClass'],
      ]);
      const categories = rows((await kubectlOk('api-resources', '--categories=cairn', '-o', 'name')).stdout).flat();
      expect(categories.sort()).toEqual(['pipelines.cairn.dev', 'runnerclasses.cairn.dev']);
      expect((await kubectlOk('api-versions')).stdout.split('\n')).toEqual(expect.arrayContaining(cairnGroup.versions.map((v) => `cairn.dev/${v}`)));
      // kube-apiserver builds /apis/cairn.dev from the APIServices: versions by versionPriority, v1 preferred.
      const group = JSON.parse((await kubectlOk('get', '--raw', '/apis/cairn.dev')).stdout);
      expect(group.versions.map((v: { version: string }) => v.version)).toEqual([...cairnGroup.versions]);
      expect(group.preferredVersion).toEqual({ groupVersion: 'cairn.dev/v1', version: 'v1' });
    });

    it('serves v1alpha1 (kubectl get pipelines.v1alpha1.cairn.dev, its columns and fields) and v1beta1 through kube-apiserver', async ({ expect }) => {
      const name = 'versions';
      await kubectlOk('create', '-f', await manifest(name, pipeline(name, { replicas: 2 })));
      // The v1alpha1 Table: its printer columns read spec.runnerClass and spec.parallelism.
      const table = rows((await kubectlOk('get', 'pipelines.v1alpha1.cairn.dev', name)).stdout);
      expect(table[0]).toEqual(['NAME', 'RUNNERCLASS', 'REPLICAS', 'READY', 'PHASE', 'AGE']);
      expect(table[1].slice(0, 3)).toEqual([name, 'standard', '2']);
      const alpha = JSON.parse((await kubectlOk('get', 'pipelines.v1alpha1.cairn.dev', name, '-o', 'json')).stdout);
      expect(alpha.apiVersion).toBe('cairn.dev/v1alpha1');
      expect(alpha.spec).toEqual({ runnerClass: 'standard', parallelism: 2, steps: [{ name: 'fetch', image: 'alpine:3.20', run: 'echo hi' }] });
      // The v1beta1 path, proxied like the others.
      const beta = JSON.parse((await kubectlOk('get', '--raw', `/apis/cairn.dev/v1beta1/namespaces/default/pipelines/${name}`)).stdout);
      expect(beta).toMatchObject({ apiVersion: 'cairn.dev/v1beta1', kind: 'Pipeline', metadata: { name, uid: alpha.metadata.uid } });
      expect(beta.spec).toMatchObject({ runnerClassName: 'standard', replicas: 2 });
      await kubectlOk('delete', 'pipeline', name);
    });

    it('explains pipelines.spec.steps (aggregated OpenAPI v3)', async ({ expect }) => {
      const explained = (await kubectlOk('explain', 'pipelines.spec.steps')).stdout;
      expect(explained).toMatch(/^GROUP:\s+cairn\.dev$/m);
      expect(explained).toMatch(/^KIND:\s+Pipeline$/m);
      expect(explained).toMatch(/^VERSION:\s+v1$/m);
      expect(explained).toMatch(/^FIELD: steps <\[\]Object>$/m);
      expect(explained).toMatch(/^ {2}name\t<string> -required-$/m);
      expect(explained).toMatch(/^ {2}command\t<\[\]string>$/m);
    });

    it('creates, gets as a table, labels, patches (merge and strategic), scales and deletes a Pipeline', async ({ expect }) => {
      const name = 'crud';
      const created = await kubectlOk('create', '-f', await manifest(name, pipeline(name, { replicas: 2 })));
      expect(created.stdout.trim()).toBe(`pipeline.cairn.dev/${name} created`);
      const duplicate = await kubectl('create', '-f', await manifest(name, pipeline(name)));
      expect(duplicate.code).toBe(1);
      expect(duplicate.stderr).toContain(`Error from server (AlreadyExists): error when creating`);
      expect(duplicate.stderr).toContain(`pipelines.cairn.dev "${name}" already exists`);

      const table = rows((await kubectlOk('get', 'pipelines', name)).stdout);
      expect(table[0]).toEqual(['NAME', 'RUNNERCLASS', 'REPLICAS', 'READY', 'PHASE', 'AGE']);
      expect(table).toHaveLength(2);
      expect(table[1].slice(0, 3)).toEqual([name, 'standard', '2']);

      expect((await kubectlOk('label', 'pipeline', name, 'team=data')).stdout.trim()).toBe(`pipeline.cairn.dev/${name} labeled`);
      expect((await kubectlOk('get', 'pipelines', '-l', 'team=data', '-o', 'name')).stdout.trim()).toBe(`pipeline.cairn.dev/${name}`);
      const shown = rows((await kubectlOk('get', 'pipeline', name, '--show-labels')).stdout);
      expect(shown[1].at(-1)).toBe('team=data');

      const merged = await kubectlOk('patch', 'pipeline', name, '--type=merge', '-p', '{"spec":{"paused":true}}');
      expect(merged.stdout.trim()).toBe(`pipeline.cairn.dev/${name} patched`);
      const strategic = await kubectlOk('patch', 'pipeline', name, '--type=strategic', '-p', '{"spec":{"steps":[{"name":"build","image":"alpine:3.20"}]}}');
      expect(strategic.stdout.trim()).toBe(`pipeline.cairn.dev/${name} patched`);
      const patched = JSON.parse((await kubectlOk('get', 'pipeline', name, '-o', 'json')).stdout);
      expect(patched.spec).toMatchObject({ paused: true, replicas: 2 });
      // As kube's strategic merge orders a list without $setElementOrder: the patch's new items first.
      expect(patched.spec.steps.map((step: { name: string }) => step.name)).toEqual(['build', 'fetch']);
      expect(patched.metadata.labels).toEqual({ team: 'data' });

      expect((await kubectlOk('scale', 'pipeline', name, '--replicas=4')).stdout.trim()).toBe(`pipeline.cairn.dev/${name} scaled`);
      const scale = JSON.parse((await kubectlOk('get', 'pipeline', name, '--subresource=scale', '-o', 'json')).stdout);
      expect(scale).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 4 } });
      expect((await kubectlOk('get', 'pipeline', name, '-o', 'jsonpath={.spec.replicas}')).stdout).toBe('4');

      expect((await kubectlOk('delete', 'pipeline', name)).stdout.trim()).toBe(`pipeline.cairn.dev "${name}" deleted`);
      const gone = await kubectl('get', 'pipeline', name);
      expect(gone.code).toBe(1);
      expect(gone.stderr.trim()).toBe(`Error from server (NotFound): pipelines.cairn.dev "${name}" not found`);
    });

    it('watches with get -w: ADDED, MODIFIED and DELETED rows as the Pipeline changes', async ({ expect }) => {
      const name = 'watched';
      // Created first: kubectl prints nothing for an empty list, so only a listed object shows the watch has begun.
      await kubectlOk('create', '-f', await manifest(name, pipeline(name, {}, { suite: 'watch' })));
      const watcher = streamKubectl('get', 'pipelines', '-l', 'suite=watch', '-w', '--output-watch-events');
      const watchedRows = () => rows(watcher.stdout()).filter((row) => row[1] === name);
      const sawRow = (predicate: (row: string[]) => boolean) =>
        waitFor(() => watchedRows().some(predicate) || watcher.exitCode() !== undefined, 15_000, watcher.shown);
      try {
        await sawRow((row) => row[0] === 'ADDED');
        await kubectlOk('scale', 'pipeline', name, '--replicas=3');
        await sawRow((row) => row[0] === 'MODIFIED' && row[3] === '3');
        await kubectlOk('delete', 'pipeline', name);
        await sawRow((row) => row[0] === 'DELETED');
        expect(watcher.exitCode(), watcher.shown()).toBeUndefined();
        expect(rows(watcher.stdout())[0]).toEqual(['EVENT', 'NAME', 'RUNNERCLASS', 'REPLICAS', 'READY', 'PHASE', 'AGE']);
        expect(watchedRows().map((row) => row[0])).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
        expect(watchedRows()[0].slice(2, 4)).toEqual(['standard', '1']);
      } finally {
        await watcher.stop();
      }
    });

    it('applies client-side (create, configure, unchanged) and server-side (create, update, conflict, force)', async ({ expect }) => {
      const csa = 'applied';
      expect((await kubectlOk('apply', '-f', await manifest(csa, pipeline(csa)))).stdout.trim()).toBe(`pipeline.cairn.dev/${csa} created`);
      const changed = await manifest(csa, pipeline(csa, { replicas: 3 }));
      expect((await kubectlOk('apply', '-f', changed)).stdout.trim()).toBe(`pipeline.cairn.dev/${csa} configured`);
      expect((await kubectlOk('apply', '-f', changed)).stdout.trim()).toBe(`pipeline.cairn.dev/${csa} unchanged`);
      const applied = JSON.parse((await kubectlOk('get', 'pipeline', csa, '-o', 'json')).stdout);
      expect(applied.spec.replicas).toBe(3);
      expect(JSON.parse(applied.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'])).toMatchObject({ spec: { replicas: 3 } });

      const ssa = 'server-applied';
      const first = await kubectlOk('apply', '--server-side', '-f', await manifest(ssa, pipeline(ssa, { replicas: 2 })));
      expect(first.stdout.trim()).toBe(`pipeline.cairn.dev/${ssa} serverside-applied`);
      const second = await kubectlOk('apply', '--server-side', '-f', await manifest(ssa, pipeline(ssa, { replicas: 5 })));
      expect(second.stdout.trim()).toBe(`pipeline.cairn.dev/${ssa} serverside-applied`);
      const object = JSON.parse((await kubectlOk('get', 'pipeline', ssa, '-o', 'json', '--show-managed-fields')).stdout);
      expect(object.spec.replicas).toBe(5);
      expect(object.metadata.managedFields).toEqual(expect.arrayContaining([expect.objectContaining({ manager: 'kubectl', operation: 'Apply' })]));

      const other = await manifest(`${ssa}-other`, pipeline(ssa, { replicas: 7 }));
      const conflict = await kubectl('apply', '--server-side', '--field-manager=other', '-f', other);
      expect(conflict.code).toBe(1);
      expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');
      const forced = await kubectlOk('apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', other);
      expect(forced.stdout.trim()).toBe(`pipeline.cairn.dev/${ssa} serverside-applied`);
      expect((await kubectlOk('get', 'pipeline', ssa, '-o', 'jsonpath={.spec.replicas}')).stdout).toBe('7');

      await kubectlOk('delete', 'pipeline', csa, ssa);
    });

    it('@kubernetes/client-node creates, lists, patches, watches and deletes through kube-apiserver', async ({ expect }) => {
      const kc = new KubeConfig();
      kc.loadFromFile(plane.kubeconfigPath);
      expect(kc.getCurrentCluster()?.server).toBe(plane.url);
      const customObjects = kc.makeApiClient(CustomObjectsApi);
      const objects = KubernetesObjectApi.makeApiClient(kc);
      const coordinates = { group: 'cairn.dev', version: 'v1', namespace: 'default', plural: 'pipelines' };
      const name = 'client-node';

      const events: string[] = [];
      const ended: unknown[] = [];
      const controller = await new Watch(kc).watch(
        pipelines,
        { labelSelector: 'suite=client-node' },
        (type: string, object: KubernetesObject & { spec?: { replicas?: number } }) => events.push(`${type} ${object.metadata?.name} ${object.spec?.replicas}`),
        (error: unknown) => ended.push(error),
      );
      const shown = () => `events: ${JSON.stringify(events)}, ended: ${ended.map(String).join('; ')}`;
      try {
        const created = (await customObjects.createNamespacedCustomObject({
          ...coordinates,
          body: pipeline(name, {}, { suite: 'client-node' }),
        })) as KubernetesObject;
        expect(created.metadata).toMatchObject({ name, namespace: 'default', uid: expect.any(String) });
        const listed = (await customObjects.listNamespacedCustomObject({ ...coordinates, labelSelector: 'suite=client-node' })) as {
          items: KubernetesObject[];
        };
        expect(listed.items.map((item) => item.metadata?.name)).toEqual([name]);

        // KubernetesObjectApi discovers the resource through kube-apiserver, then patches (strategic merge by default).
        const patched = (await objects.patch({
          apiVersion: 'cairn.dev/v1',
          kind: 'Pipeline',
          metadata: { name, namespace: 'default' },
          spec: { replicas: 6 },
        })) as unknown as {
          spec: { replicas: number; steps: unknown[] };
        };
        expect(patched.spec.replicas).toBe(6);
        expect(patched.spec.steps).toHaveLength(1);
        const read = (await customObjects.getNamespacedCustomObject({ ...coordinates, name })) as { spec: { replicas: number } };
        expect(read.spec.replicas).toBe(6);

        await customObjects.deleteNamespacedCustomObject({ ...coordinates, name });
        await waitFor(() => events.length >= 3 || ended.length > 0, 15_000, shown);
        expect(events).toEqual([`ADDED ${name} 1`, `MODIFIED ${name} 6`, `DELETED ${name} 6`]);
        expect(ended).toEqual([]);
      } finally {
        controller.abort();
      }
    });
  });
});
