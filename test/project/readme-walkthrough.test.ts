/**
 * README.md's "The first hour", run as a newcomer runs it, so the README never lies: every
 * `sh` block of that section, in order, with bash, in a scratch copy of the checkout (its
 * entries linked, `apiservice/` copied, a fresh `.data`), with the real kubectl and `npm
 * start`, checking that each prints what the text says. Blocks go to the terminals the text
 * names: the server's (`npm start`, left running; Ctrl-C is SIGINT to its process group), the
 * one the user types kubectl into, the one following the log, and one pointed at a cluster;
 * what a block exports stays in its terminal for the next block there.
 *
 * What differs from a user's run is said in the README too: `PORT=0` (the machine is shared);
 * the PostgreSQL URL placeholder, and the URL in apiservice/'s Secret, become a throwaway
 * database's; each cluster (one for `kubectl apply -f apiservice/`, one for `helm install`)
 * is a real kube-apiserver 1.34 and etcd without nodes or kube-proxy, so the test runs the
 * Deployment's pod and routes its Service itself once the block has created the APIServices. A block marked `<!-- not run … -->` (Docker Compose) is skipped,
 * and the README says why beside it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseConfig } from '../../src/server/config.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { cairnApiServices, cairnNamespace, cairnService } from '../support/aggregated-cairn.js';
import { eventually } from '../support/eventually.js';
import { controlPlaneKubectl, startKubeControlPlane, type KubeControlPlane } from '../support/kube-control-plane.js';
import { kubectlAvailable } from '../support/kubectl.js';
import { testDatabaseUrl } from '../support/test-database.js';

const root = join(import.meta.dirname, '..', '..');
const section = '## The first hour';
/** The URL the README asks the user to replace with their database's. */
const databaseUrlPlaceholder = 'postgres://USER:PASSWORD@HOST:5432/DATABASE';
/** Where the README's example banner says the checkout is. */
const exampleCheckout = '/home/you/cairn';
/** How long one block that ends may run. */
const BLOCK_TIMEOUT_MS = 60_000;

/** A fenced block of the walkthrough. */
interface Block {
  readonly language: string;
  readonly code: string;
  /** Whether a `<!-- not run … -->` comment precedes it. */
  readonly notRun: boolean;
}

/** The fenced blocks between the section's heading and the next `## ` heading. */
function walkthroughBlocks(readme: string): Block[] {
  const start = readme.indexOf(`\n${section}\n`);
  if (start < 0) throw new Error(`README.md has no "${section}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  const text = readme.slice(start, end < 0 ? undefined : end);
  return [...text.matchAll(/(<!-- not run[^>]*-->\s*\n)?^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    notRun: match[1] !== undefined,
    language: match[2],
    code: match[3],
  }));
}

/** What a block printed and how it ended. */
interface Output {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
}

/** A block still running (the server, the follow): its output so far. */
interface Running {
  readonly output: () => Output;
  readonly exited: Promise<Output>;
  /** Sends `signal` to its process group, as the terminal does for Ctrl-C (SIGINT). */
  signal(signal: NodeJS.Signals): void;
}

/** A shell session: each block runs with the variables the earlier ones of the same terminal exported. */
class Terminal {
  readonly #state: string;
  constructor(
    readonly name: string,
    private readonly cwd: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.#state = join(cwd, `.terminal-${name}`);
  }

  async open(): Promise<this> {
    await writeFile(this.#state, '');
    return this;
  }

  /** Starts `code` in its own process group; `keep` saves what it exported when it ends. */
  start(code: string, keep: boolean): Running {
    const script = `source ${this.#state}\nset -eo pipefail\n${code}\n${keep ? `export -p > ${this.#state}\n` : ''}`;
    const child: ChildProcess = spawn('bash', ['-c', script], { cwd: this.cwd, env: this.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let exitCode: number | null = null;
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const output = (): Output => ({ stdout, stderr, code: exitCode });
    const exited = new Promise<Output>((resolve) =>
      child.on('close', (code) => {
        exitCode = code;
        resolve(output());
      }),
    );
    return {
      output,
      exited,
      signal: (signal) => {
        if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, signal);
      },
    };
  }

  /** Runs `code` to its end and returns its output, which must be a success. */
  async run(code: string): Promise<Output> {
    const running = this.start(code, true);
    const timer = setTimeout(() => running.signal('SIGKILL'), BLOCK_TIMEOUT_MS);
    const output = await running.exited.finally(() => clearTimeout(timer));
    expect(output.code, `${this.name}$ ${code}\nstdout: ${output.stdout}\nstderr: ${output.stderr}`).toBe(0);
    return output;
  }
}

/** The banner `npm start` prints on stderr: complete at its blank line. */
async function bannerOf(server: Running): Promise<string> {
  // npm's own warnings may come first.
  const banner = (): string | undefined => /^Cairn serves [\s\S]*?\n(?=\n)/m.exec(server.output().stderr)?.[0];
  await eventually('npm start prints its banner', 120_000, async () => banner() !== undefined || server.output().code !== null);
  expect(banner(), `npm start ended before its banner: ${JSON.stringify(server.output())}`).toBeDefined();
  return banner()!;
}

/** `kubectl … -o json` against the control plane, parsed. */
async function kubectlJson(plane: KubeControlPlane, ...args: string[]): Promise<any> {
  const result = await plane.kubectl([...args, '-o', 'json']);
  expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout);
}

/**
 * What kubelet does for a pod of apiservice/'s Deployment, which nothing runs on a control
 * plane without nodes: the container's args, its environment (from a Secret), its volumes (a
 * Secret, a ConfigMap, an emptyDir) and its ServiceAccount's token and CA, as files under
 * `dir`, then Cairn started in-process with them, one replica. Its network is the loopback, so
 * it listens on a free port of 127.0.0.1 instead of the container's 8443 on every interface.
 */
async function runDeploymentPod(plane: KubeControlPlane, dir: string): Promise<RunningServer> {
  const deployment = await kubectlJson(plane, '-n', cairnNamespace, 'get', 'deployment', cairnService);
  const pod = deployment.spec.template.spec;
  const [container] = pod.containers;
  const secret = async (name: string): Promise<Record<string, string>> => (await kubectlJson(plane, '-n', cairnNamespace, 'get', 'secret', name)).data;
  const mounts = new Map<string, string>();
  for (const mount of container.volumeMounts) {
    const volume = pod.volumes.find((v: { name: string }) => v.name === mount.name);
    const local = join(dir, 'volumes', mount.name);
    await mkdir(local, { recursive: true });
    if (volume.secret) {
      for (const [key, value] of Object.entries(await secret(volume.secret.secretName))) await writeFile(join(local, key), Buffer.from(value, 'base64'));
    } else if (volume.configMap) {
      const configMap = await kubectlJson(plane, '-n', cairnNamespace, 'get', 'configmap', volume.configMap.name);
      for (const [key, value] of Object.entries<string>(configMap.data)) await writeFile(join(local, key), value);
    } else {
      expect(volume.emptyDir, `volume ${mount.name}`).toBeDefined();
    }
    mounts.set(mount.mountPath, local);
  }
  const args = (container.args as string[]).map((arg) => {
    if (arg.startsWith('--port=')) return '--port=0';
    if (arg.startsWith('--bind-address=')) return '--bind-address=127.0.0.1';
    return [...mounts].reduce((local, [mountPath, path]) => local.replace(mountPath, path), arg);
  });
  const env: Record<string, string> = {};
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.secretKeyRef;
    env[variable.name] = ref ? Buffer.from((await secret(ref.name))[ref.key], 'base64').toString('utf8') : variable.value;
  }
  // The ServiceAccount's token and the cluster's CA, mounted at /var/run/secrets/kubernetes.io/serviceaccount.
  const serviceAccountDir = join(dir, 'serviceaccount');
  await mkdir(serviceAccountDir, { recursive: true });
  const token = await plane.kubectl(['-n', cairnNamespace, 'create', 'token', pod.serviceAccountName]);
  expect(token.code, token.stderr).toBe(0);
  await writeFile(join(serviceAccountDir, 'token'), token.stdout.trim());
  await writeFile(join(serviceAccountDir, 'ca.crt'), plane.servingCaPem);
  await writeFile(join(serviceAccountDir, 'namespace'), cairnNamespace);
  const { hostname, port } = new URL(plane.url);
  const config = parseConfig(args, { ...env, KUBERNETES_SERVICE_HOST: hostname, KUBERNETES_SERVICE_PORT: port });
  const server = await startServer(config, pino({ level: process.env.CAIRN_TEST_LOG ?? 'silent' }), { serviceAccountDir });
  await server.ready;
  return server;
}

/**
 * What kube-proxy does for the Service, which this machine does not run: the aggregator reaches
 * a ClusterIP Service only through it. So the Service becomes an ExternalName to the loopback
 * host and each APIService names the pod's port, as test/support/aggregated-cairn.ts registers
 * Cairn; the aggregator still verifies the serving certificate for
 * cairn-apiserver.cairn-system.svc with the caBundle `npm run certs` wrote.
 */
async function routeService(plane: KubeControlPlane, dir: string, port: number): Promise<void> {
  const file = join(dir, 'external-service.yaml');
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: cairnService, namespace: cairnNamespace },
    spec: { type: 'ExternalName', externalName: 'localhost' },
  };
  await writeFile(file, stringify(service));
  for (const args of [
    ['-n', cairnNamespace, 'delete', 'service', cairnService],
    ['create', '-f', file],
    ...cairnApiServices.map((name) => ['patch', 'apiservice', name, '--type=merge', '-p', JSON.stringify({ spec: { service: { port } } })]),
  ]) {
    const result = await plane.kubectl(args);
    expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  }
}

/** Stops a running server as Ctrl-C does, and waits for it to end. */
async function interrupt(server: Running): Promise<Output> {
  server.signal('SIGINT');
  return server.exited;
}

describe.runIf(kubectlAvailable)('README.md, "The first hour", run block by block (needs kubectl on PATH)', () => {
  let checkout: string;
  let env: NodeJS.ProcessEnv;
  let blocks: Block[];
  const running: Running[] = [];
  /** The block that registers Cairn with a cluster with helm, run by the third test. */
  const isHelmBlock = (block: Block): boolean => block.code.includes('helm install');
  /** The blocks that register Cairn with a cluster: with apiservice/ (run by the second test) or helm. */
  const isClusterBlock = (block: Block): boolean => block.code.includes('kubectl apply -f apiservice/') || isHelmBlock(block);

  beforeAll(async () => {
    blocks = walkthroughBlocks(await readFile(join(root, 'README.md'), 'utf8'));
    checkout = await mkdtemp(join(tmpdir(), 'cairn-first-hour-'));
    for (const entry of await readdir(root)) {
      // apiservice/ is copied: `npm run certs` writes into it.
      if (entry === 'apiservice') await cp(join(root, entry), join(checkout, entry), { recursive: true });
      else if (!['.git', '.data'].includes(entry)) await symlink(join(root, entry), join(checkout, entry));
    }
    env = {
      ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !['KUBECONFIG', 'DATABASE_URL', 'DATA_DIR', 'BIND_ADDRESS'].includes(name))),
      // The project's Node 22 first, as `npm ci` leaves it for npm scripts.
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
      PORT: '0',
      KUBECACHEDIR: join(checkout, '.kube-cache'),
    };
  });

  afterAll(async () => {
    for (const block of running) block.signal('SIGKILL');
    await Promise.all(running.map((block) => block.exited));
    await rm(checkout, { recursive: true, force: true });
  });

  // The blocks of steps 1–7 and those registering Cairn with a cluster share no file, port or terminal: the first
  // cluster block runs beside steps 1–7. The two cluster blocks run one after the other: both write apiservice/'s certificates.
  it.concurrent(
    '1–7: runs every block from npm start to PostgreSQL as the text says, and each shows what the text promises',
    { timeout: 240_000 },
    async () => {
      const databaseUrl = await testDatabaseUrl();
      const server = await new Terminal('server', checkout, env).open();
      const shell = await new Terminal('kubectl', checkout, env).open();
      const follow = await new Terminal('follow', checkout, env).open();

      const runnable = blocks.filter((block) => block.language === 'sh' && !block.notRun && !isClusterBlock(block));
      const steps = [...runnable];
      /** The next block, which must contain `command`. */
      const next = (command: string): string => {
        const block = steps.shift();
        expect(block?.code, `the walkthrough's next sh block runs ${command}`).toContain(command);
        return block!.code;
      };

      // 1. npm start, left running; its banner is the README's, but for the checkout's place and the port.
      const first = server.start(next('npm start'), false);
      running.push(first);
      const banner = await bannerOf(first);
      const url = /^Cairn serves cairn\.dev at (https:\/\/127\.0\.0\.1:(\d+))$/m.exec(banner);
      expect(url, banner).not.toBeNull();
      const shownBanner = blocks.find((block) => block.language === 'text' && block.code.startsWith('Cairn serves'));
      expect(shownBanner, 'the README shows the banner').toBeDefined();
      expect(banner).toBe(shownBanner!.code.replaceAll(exampleCheckout, checkout).replace('https://127.0.0.1:8443', url![1]));

      // 2. Looking around: the kinds, the bootstrapped RunnerClass, a schema.
      const resources = await shell.run(next('kubectl api-resources'));
      expect(resources.stdout).toMatch(/^pipelines\s+pl\s+cairn\.dev\/v1\s+true\s+Pipeline$/m);
      expect(resources.stdout).toMatch(/^runnerclasses\s+rc\s+cairn\.dev\/v1\s+false\s+RunnerClass$/m);
      const lookAround = await shell.run(next('kubectl explain pipeline.spec'));
      expect(lookAround.stdout).toMatch(/^standard\s+alpine:3\.20\s+\S+$/m);
      expect(lookAround.stdout).toMatch(/^ {2}Image:\s+alpine:3\.20$/m);
      expect(lookAround.stdout).toMatch(/^FIELD: spec <Object>$/m);
      expect(lookAround.stdout).toMatch(/^ {2}replicas\s+<integer>$/m);
      expect(lookAround.stdout).toMatch(/^ {2}runnerClassName\s+<string>$/m);

      // 3. A Pipeline, defaulted to one replica, made ready by the controller.
      const created = await shell.run(next('kubectl apply'));
      expect(created.stdout).toContain('pipeline.cairn.dev/hello created\n');
      expect(created.stdout).toContain('pipeline.cairn.dev/hello condition met\n');
      expect(created.stdout).toMatch(/^hello\s+standard\s+1\s+1\s+Running\s+\S+$/m);

      // 4. The follow, in its own terminal: the lines so far, then it waits.
      const follower = follow.start(next('follow=true'), false);
      running.push(follower);
      await eventually(
        'the follow prints the first step',
        30_000,
        async () => follower.output().stdout.includes('1/1 ready') || follower.output().code !== null,
      );
      expect(follower.output().stdout).toContain('[cairn-controller] AllReplicasReady: 1/1 ready, phase Running\n');
      expect(follower.output().code, follower.output().stderr).toBeNull();

      // 5. Scaled, and watched until every runner is ready.
      const scaled = await shell.run(next('kubectl scale'));
      expect(scaled.stdout).toContain('pipeline.cairn.dev/hello scaled\n');
      expect(scaled.stdout).toMatch(/^hello\s+standard\s+3\s+3\s+Running\s+\S+$/m);
      await eventually(
        'the follow prints the last step',
        30_000,
        async () => follower.output().stdout.includes('3/3 ready') || follower.output().code !== null,
      );
      expect(follower.output().stdout).toContain('[cairn-controller] AllReplicasReady: 3/3 ready, phase Running\n');
      expect(follower.output().stdout).toMatch(/Scaling: 2\/3 ready, phase Pending\n/);

      // 6. Deleted: the follow ends, cleanly.
      const deleted = await shell.run(next('kubectl delete'));
      expect(deleted.stdout).toBe('pipeline.cairn.dev "hello" deleted\n');
      const followed = await follower.exited;
      expect(followed.code, followed.stderr).toBe(0);

      // 7. Ctrl-C, then npm start on PostgreSQL: the kubeconfig stays, the storage is the database's.
      await interrupt(first);
      const onPostgres = next('npm start');
      expect(onPostgres).toContain(databaseUrlPlaceholder);
      const second = server.start(onPostgres.replaceAll(databaseUrlPlaceholder, databaseUrl), false);
      running.push(second);
      const postgresBanner = await bannerOf(second);
      expect(postgresBanner).toMatch(/^ {2}storage: {4}PostgreSQL at postgres(ql)?:\/\/.*$/m);
      expect(postgresBanner).not.toContain('WARNING');
      expect(postgresBanner).toContain(`  kubeconfig: ${join(checkout, '.data', 'kubeconfig')}\n`);
      const listed = await shell.run(next('kubectl get pipelines,runnerclasses'));
      expect(listed.stdout).toMatch(/^runnerclass\.cairn\.dev\/standard\s+alpine:3\.20\s+\S+$/m);
      expect(listed.stdout).not.toContain('pipeline.cairn.dev/');
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        const rows = await db.query<{ name: string }>('SELECT name FROM cairn_objects');
        expect(rows.rows.map((row) => row.name)).toEqual(['standard']);
      } finally {
        await db.end();
      }
      const stopped = await interrupt(second);
      expect(stopped.stdout).toContain('"msg":"shutting down"');

      expect(steps, 'every runnable block of the walkthrough was run and checked').toEqual([]);
    },
  );

  /**
   * Runs `code`, which registers Cairn with a cluster, in a terminal whose kubectl (and helm)
   * talk to a fresh control plane; once it has created the APIServices, runs the pod and
   * routes the Service as kubelet and kube-proxy would. Returns what the block printed,
   * having checked it succeeded.
   */
  async function runClusterBlock(name: string, code: string): Promise<Output> {
    const plane = await startKubeControlPlane(inject('goPrograms'));
    let pod: RunningServer | undefined;
    try {
      // kubectl pointed at the cluster: one within a minor of kube-apiserver 1.34; helm as the test support built it.
      const bin = join(checkout, `.${name}-bin`);
      await mkdir(bin);
      await symlink(controlPlaneKubectl(), join(bin, 'kubectl'));
      await symlink(inject('goPrograms').helm, join(bin, 'helm'));
      const cluster = await new Terminal(name, checkout, {
        ...env,
        PATH: `${bin}${delimiter}${env.PATH}`,
        KUBECONFIG: plane.kubeconfigPath,
        KUBECACHEDIR: join(checkout, `.kube-cache-${name}`),
        // helm's own cache and configuration, as a user's under their HOME.
        HELM_CACHE_HOME: join(checkout, `.helm-${name}`, 'cache'),
        HELM_CONFIG_HOME: join(checkout, `.helm-${name}`, 'config'),
        HELM_DATA_HOME: join(checkout, `.helm-${name}`, 'data'),
      }).open();

      const block = cluster.start(code, true);
      running.push(block);
      // Once the block created the APIServices (the last is in apiservice/'s last file, or the chart's), the pod starts and the Service routes to it.
      await eventually(
        'the block creates the APIServices',
        120_000,
        async () => (await plane.kubectl(['get', 'apiservice', ...cairnApiServices])).code === 0 || block.output().code !== null,
      );
      expect(block.output().code, JSON.stringify(block.output())).toBeNull();
      const podDir = join(checkout, `.${name}-pod`);
      pod = await runDeploymentPod(plane, podDir);
      await routeService(plane, podDir, pod.port);

      const output = await block.exited;
      expect(output.code, `${JSON.stringify(output)}\n${await plane.logTail()}`).toBe(0);
      return output;
    } finally {
      await pod?.close();
      await plane.stop();
    }
  }

  it.concurrent(
    '8: registers Cairn behind a real kube-apiserver with apiservice/, the test doing what kubelet and kube-proxy do',
    { timeout: 400_000 },
    async () => {
      const clusterBlocks = blocks.filter((block) => block.language === 'sh' && !block.notRun && isClusterBlock(block) && !isHelmBlock(block));
      expect(clusterBlocks, 'one block registers Cairn with apiservice/').toHaveLength(1);
      // What the text asks first: the database's URL in the Secret.
      const secretFile = join(checkout, 'apiservice', '20-database-secret.yaml');
      const secret = await readFile(secretFile, 'utf8');
      const [, exampleUrl] = /^ {2}url: (\S+)$/m.exec(secret) ?? [];
      expect(exampleUrl).toBeDefined();
      await writeFile(secretFile, secret.replace(exampleUrl, await testDatabaseUrl()));

      const output = await runClusterBlock('cluster', clusterBlocks[0].code);
      expect(output.stdout).toContain('serving certificate for cairn-apiserver.cairn-system.svc');
      expect(output.stdout).toMatch(/^caBundle: apiservice\/40-apiservice-v1.yaml$/m);
      expect(output.stdout).toContain('configmap/cairn-requestheader-ca created\n');
      expect(output.stdout).toContain('deployment.apps/cairn-apiserver created\n');
      for (const name of cairnApiServices) expect(output.stdout).toContain(`apiservice.apiregistration.k8s.io/${name} condition met\n`);
      // Through kube-apiserver: no Pipelines yet, in any namespace.
      expect(output.stderr).toContain('No resources found\n');
    },
  );

  it(
    '8, with Helm: registers Cairn behind a real kube-apiserver with helm install charts/cairn, the test doing what kubelet and kube-proxy do',
    { timeout: 400_000 },
    async () => {
      const helmBlocks = blocks.filter((block) => block.language === 'sh' && !block.notRun && isHelmBlock(block));
      expect(helmBlocks, 'one block registers Cairn with helm install').toHaveLength(1);
      const code = helmBlocks[0].code;
      // The database's URL in place of the placeholder, as the text asks.
      expect(code).toContain(databaseUrlPlaceholder);
      const output = await runClusterBlock('helm', code.replaceAll(databaseUrlPlaceholder, await testDatabaseUrl()));
      expect(output.stdout).toContain('serving certificate for cairn-apiserver.cairn-system.svc');
      expect(output.stdout).toContain('namespace/cairn-system created\n');
      expect(output.stdout).toContain('configmap/cairn-requestheader-ca created\n');
      expect(output.stdout).toContain('secret/cairn-serving-cert created\n');
      expect(output.stdout).toMatch(/^NAME: cairn\n[\s\S]*^STATUS: deployed$/m);
      for (const name of cairnApiServices) expect(output.stdout).toContain(`apiservice.apiregistration.k8s.io/${name} condition met\n`);
      expect(output.stderr).toContain('No resources found\n');
    },
  );

  it('skips only the Docker Compose block, which needs a Docker engine', () => {
    expect(blocks.filter((block) => block.notRun).map((block) => block.code.split('\n')[0])).toEqual(['docker compose up -d']);
  });
});
