/**
 * A rolling restart with zero failed requests: two Cairn replicas (processes, one
 * PostgreSQL database, one PKI) behind HAProxy, which checks `GET /readyz`; each replica
 * in turn gets SIGTERM and starts again, while kubectl, @kubernetes/client-node and
 * reflectors work through HAProxy's one address. A replica shutting down fails /readyz
 * at once and keeps serving through `--shutdown-delay-duration`, answers HTTP/1.1 with
 * `Connection: close` meanwhile so keep-alive clients move on, lets requests in flight
 * finish and ends its watches so their clients re-watch from their last resourceVersion.
 * The clients retry only as the real ones do: kubectl's client-go on its own terms,
 * client-node and a Node keep-alive agent not at all, a reflector by watching again from
 * where it was.
 */
import https from 'node:https';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../support/free-port.js';
import { startHaproxy, type Haproxy } from '../support/haproxy.js';
import { kubectlAvailable, kubectlOnPath, runKubectl } from '../support/kubectl.js';
import { Reflector } from '../support/reflector.js';
import { spawnServer, type ServerProcess } from '../support/server-process.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { pipeline, requestServer, type ServerEndpoint } from '../support/test-server.js';

const namespace = 'rolling';
const pipelines = `/apis/cairn.dev/v1/namespaces/${namespace}/pipelines`;
/** kubectl's paged list: ten pages of five, so restarts fall between its pages. */
const listedNamespace = 'rolling-listed';
const listedPipelines = `/apis/cairn.dev/v1/namespaces/${listedNamespace}/pipelines`;
const listed = 50;
/** Long enough for HAProxy (checks every 300 ms, two failures) to stop sending new connections. */
const shutdownDelay = '2s';

/** One replica's process, on its fixed port and data directory, which outlive it: it is stopped and started again on them. */
function startReplica(dataDir: string, port: number, databaseUrl: string): Promise<ServerProcess> {
  const args = [
    '--database-url',
    databaseUrl,
    '--no-controller',
    '--garbage-collector=off',
    '--shutdown-delay-duration',
    shutdownDelay,
    '--shutdown-grace',
    '10',
  ];
  return spawnServer(args, { dataDir, port, keepDataDir: true, env: { LOG_LEVEL: 'info' } });
}

describe('a rolling restart behind HAProxy', () => {
  const replicas: ServerProcess[] = [];
  const ports: number[] = [];
  const directories: string[] = [];
  let haproxy: Haproxy;
  let endpoint: Required<ServerEndpoint>;
  let kubeconfigFile: string;
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await testDatabaseUrl();
    for (let i = 0; i < 2; i++) {
      const dataDir = await mkdtemp(join(tmpdir(), 'cairn-rolling-'));
      directories.push(dataDir);
      // One PKI for both, as replicas behind one address share their serving certificate and CA.
      if (i > 0) await cp(join(directories[0], 'pki'), join(dataDir, 'pki'), { recursive: true });
      ports.push(await freeLoopbackPort());
      replicas.push(await startReplica(dataDir, ports[i], databaseUrl));
      await replicas[i].endpoint();
    }
    haproxy = await startHaproxy(
      directories[0],
      ports.map((port, i) => ({ name: `cairn${i}`, port, checkPort: port })),
      { mode: 'https', request: 'GET /readyz', intervalMs: 300, cutSessionsWhenDown: false },
    );
    const [servingCaPem, adminCertPem, adminKeyPem] = await Promise.all(
      ['serving-ca.crt', 'admin.crt', 'admin.key'].map((f) => readFile(join(directories[0], 'pki', f), 'utf8')),
    );
    endpoint = { url: `https://127.0.0.1:${haproxy.port}`, pki: { servingCaPem, adminCertPem, adminKeyPem } };
    kubeconfigFile = join(directories[1], 'haproxy.kubeconfig');
    const b64 = (pem: string) => Buffer.from(pem).toString('base64');
    await writeFile(
      kubeconfigFile,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'cairn', cluster: { server: endpoint.url, 'certificate-authority-data': b64(servingCaPem) } }],
        users: [{ name: 'admin', user: { 'client-certificate-data': b64(adminCertPem), 'client-key-data': b64(adminKeyPem) } }],
        contexts: [{ name: 'cairn', context: { cluster: 'cairn', user: 'admin', namespace } }],
        'current-context': 'cairn',
      }),
    );
  });

  afterAll(async () => {
    for (const replica of replicas) replica.child.kill('SIGKILL');
    await Promise.all(replicas.map((replica) => replica.stop()));
    await haproxy?.stop();
    for (const directory of directories) await rm(directory, { recursive: true, force: true });
  });

  it.skipIf(!kubectlAvailable)('serves kubectl, client-node and watchers with no failed request and no lost event', { timeout: 180_000 }, async () => {
    // kubectl pages through a namespace of its own whose size is fixed: the one the writers
    // fill grows with the machine's speed, and paging through it outgrew kubectl's time.
    for (let i = 0; i < listed; i++) {
      const response = await requestServer(endpoint, 'POST', listedPipelines, { body: pipeline(`listed-${i}`) });
      expect(response.status).toBe(201);
    }
    const from = (await requestServer(endpoint, 'GET', pipelines)).json.metadata.resourceVersion as string;
    const reflectors = [new Reflector(endpoint, pipelines, from), new Reflector(endpoint, pipelines, from)];
    const created: string[] = [];
    const failures: string[] = [];
    let running = true;

    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigFile);
    const objects = kubeConfig.makeApiClient(CustomObjectsApi);
    const clientNode = (async () => {
      for (let i = 0; running; i++) {
        const name = `node-${i}`;
        try {
          await objects.createNamespacedCustomObject({ group: 'cairn.dev', version: 'v1', namespace, plural: 'pipelines', body: pipeline(name) });
          created.push(name);
          await objects.listNamespacedCustomObject({ group: 'cairn.dev', version: 'v1', namespace, plural: 'pipelines', limit: 5 });
        } catch (error) {
          failures.push(`client-node ${name}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    })();
    // A Node client on one keep-alive connection, which Node's agent never retries: it moves to the
    // other replica only because the draining one answers `Connection: close`.
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    const keepAlive = (async () => {
      for (let i = 0; running; i++) {
        const name = `keepalive-${i}`;
        const response = await requestServer(endpoint, 'POST', pipelines, { body: pipeline(name), agent }).catch((error: Error) => error);
        if (!(response instanceof Error) && response.status === 201) created.push(name);
        else failures.push(`keep-alive ${name}: ${response instanceof Error ? response.message : `${response.status} ${response.text}`}`);
      }
      agent.destroy();
    })();
    const kubectlHome = directories[1];
    const env = { ...process.env, KUBECONFIG: kubeconfigFile, HOME: kubectlHome };
    const kubectl = (async () => {
      for (let i = 0; running; i++) {
        const name = `kubectl-${i}`;
        const file = join(kubectlHome, `${name}.json`);
        await writeFile(file, JSON.stringify(pipeline(name)));
        const create = await runKubectl(kubectlOnPath!, ['create', '-f', file], env);
        if (create.code === 0) created.push(name);
        else failures.push(`kubectl create ${name}: ${create.stderr.trim()}`);
        const get = await runKubectl(kubectlOnPath!, ['get', 'pipelines', '-n', listedNamespace, '-o', 'name', '--chunk-size=5'], env);
        if (get.code !== 0) failures.push(`kubectl get: ${get.stderr.trim()}`);
        else if (get.stdout.trim().split('\n').length !== listed) failures.push(`kubectl get: ${get.stdout.trim().split('\n').length} of ${listed} pipelines`);
      }
    })();
    const createdAfter = async (count: number) => {
      const target = created.length + count;
      const deadline = Date.now() + 60_000;
      while (created.length < target) {
        if (Date.now() > deadline) throw new Error(`only ${created.length} of ${target} creates; failures: ${failures.join('; ')}`);
        await sleep(50);
      }
    };

    try {
      await createdAfter(10);
      for (let i = 0; i < replicas.length; i++) {
        await replicas[i].stop();
        expect(await replicas[i].exited).toBe(0);
        replicas[i] = await startReplica(directories[i], ports[i], databaseUrl);
        await replicas[i].endpoint();
        // HAProxy sends to it again after one good check; the other replica is next.
        await sleep(1000);
        await createdAfter(10);
      }
    } finally {
      running = false;
      await Promise.all([clientNode, kubectl, keepAlive]);
    }
    expect(failures).toEqual([]);

    // Every watcher saw every create exactly once, in resourceVersion order — or was told 410 and would relist.
    const deadline = Date.now() + 30_000;
    for (const reflector of reflectors) {
      while (!reflector.expired && reflector.missing(created).length > 0) {
        if (Date.now() > deadline) throw new Error(`a watcher misses ${reflector.missing(created).join(', ')}`);
        await sleep(50);
      }
      reflector.stop();
      expect(reflector.watches, 'each watcher was ended by a shutdown and watched again').toBeGreaterThan(1);
      if (reflector.expired) continue;
      const rvs = reflector.events.map((e) => e.rv);
      expect(rvs.every((rv, i) => i === 0 || rv > rvs[i - 1])).toBe(true);
      expect(new Set(reflector.events.map((e) => e.name)).size).toBe(reflector.events.length);
    }
  });
});
