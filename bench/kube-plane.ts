/**
 * What the bench compares Cairn with: the test control plane's kube-apiserver and etcd
 * (test/support/kube-control-plane.ts), etcd syncing every write to disk as Cairn's
 * PostgreSQL does, serving Pipelines as a CustomResourceDefinition equivalent to Cairn's
 * (test/differential/pipeline-crd.ts) in Cairn's own group, cairn.dev: no Cairn is
 * aggregated behind this kube-apiserver, so the bench sends it the very requests it sends
 * Cairn, on the same paths, as the same kind of user (an admin client certificate in
 * `system:masters`, which RBAC allows everything and API Priority and Fairness exempts).
 */
import { rmSync } from 'node:fs';
import { pipelines } from '../src/apis/cairn/pipelines.js';
import { committedOpenApi, customResourceDefinition } from '../test/differential/pipeline-crd.js';
import { ensureGoPrograms } from '../test/support/go-programs.js';
import { startKubeControlPlane, type KubeControlPlane } from '../test/support/kube-control-plane.js';
import { pipelinesPath } from './pipeline-manifest.js';
import { expectStatus, request, serverAccess, type ServerAccess } from './server-access.js';
import { processUsage, type ServerUsage } from './server-usage.js';

const servedTimeoutMs = 60_000;

/** A running kube-apiserver + etcd serving Pipelines. */
export interface KubePlane {
  readonly access: ServerAccess;
  /** `kube-apiserver v1.34.4 + etcd v3.6.4 (fsync on)`. */
  readonly versions: string;
  /** kube-apiserver's CPU and memory, alone and with etcd's. */
  readonly usage: ServerUsage;
  /** Creates a namespace (kube refuses objects in one that does not exist); one that exists is left as it is. */
  readonly createNamespace: (name: string) => Promise<void>;
  /** The last lines of both logs. */
  logTail(): Promise<string>;
  stop(): Promise<void>;
}

/** The control plane currently running, for the bench's interruption handler. */
let running: KubeControlPlane | undefined;

/** Kills the control plane if one runs and removes its directory, synchronously: the bench is being interrupted. */
export function removeKubePlaneDirectory(): void {
  if (running === undefined) return;
  for (const pid of Object.values(running.pids)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Exited already.
    }
  }
  rmSync(running.directory, { recursive: true, force: true, maxRetries: 5 });
}

/**
 * Builds kube-apiserver and etcd unless cached (minutes the first time), starts them with
 * fsync on, creates the Pipelines CRD and waits until kube-apiserver serves it.
 */
export async function startKubePlane(log: (line: string) => void): Promise<KubePlane> {
  const programs = await ensureGoPrograms({ log: (line) => log(`go-programs: ${line}`) });
  const plane = await startKubeControlPlane(programs, { etcdFsync: true });
  running = plane;
  try {
    const access = serverAccess(plane.url, plane.servingCaPem, plane.admin.certPem, plane.admin.keyPem);
    const documents = Object.fromEntries(pipelines.versions.map((v) => [v.version, committedOpenApi(pipelines.group, v.version)]));
    const crd = customResourceDefinition(pipelines, pipelines.group, documents);
    await expectStatus(access, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(crd) });
    await whenServed(access);
    const { apiserver, etcd } = plane.pids;
    return {
      access,
      versions: `kube-apiserver ${programs.kubernetesVersion} + etcd ${programs.etcdVersion} (fsync on)`,
      usage: processUsage(apiserver, { pid: etcd, tree: false }),
      createNamespace: async (name) => {
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
        const answer = await request(access, 'POST', '/api/v1/namespaces', { body });
        if (answer.status !== 201 && answer.status !== 409) throw new Error(`create namespace ${name}: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
      },
      logTail: () => plane.logTail(),
      stop: async () => {
        await plane.stop();
        running = undefined;
      },
    };
  } catch (error) {
    const logs = await plane.logTail().catch(() => '');
    await plane.stop();
    running = undefined;
    throw new Error(`${(error as Error).message}\n${logs}`, { cause: error });
  }
}

/** Polls a LIST of Pipelines until it answers 200: kube-apiserver installs a CRD's handlers a moment after creating it. */
async function whenServed(access: ServerAccess): Promise<void> {
  const deadline = performance.now() + servedTimeoutMs;
  for (;;) {
    const answer = await request(access, 'GET', `${pipelinesPath('default')}?limit=1`);
    if (answer.status === 200) return;
    if (performance.now() > deadline)
      throw new Error(`kube-apiserver did not serve the Pipelines CRD within ${servedTimeoutMs / 1000} s: HTTP ${answer.status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
