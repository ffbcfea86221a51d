/**
 * A real Kubernetes control plane for the tests: etcd and kube-apiserver on loopback
 * ports, with the aggregation layer configured as in a cluster (front-proxy CA, request
 * header flags, proxy client certificate), RBAC, x509 clients and service-account keys.
 * No controller manager, scheduler or kubelet. The comments beside kube-apiserver's flags
 * below say why each one is there; docs/testing.md, "The test control plane", the rest.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import { ensurePki, issueClientCertificate, type IssuedCertificate } from '../../src/server/pki.js';
import type { GoPrograms } from './go-programs.js';
import { kubectlMinors, kubectlOnPath, runKubectl, versionedKubectl, type RunResult } from './kubectl.js';
import { freeLoopbackPort } from './free-port.js';

/** A running etcd + kube-apiserver pair; {@link stop} ends both and removes their files. */
export interface KubeControlPlane {
  /** kube-apiserver's URL, `https://127.0.0.1:PORT`. */
  readonly url: string;
  /** etcd's client URL, `http://127.0.0.1:PORT`. */
  readonly etcdUrl: string;
  /** The temporary directory holding the PKI, etcd's data, the logs and the kubeconfig. */
  readonly directory: string;
  /** An admin kubeconfig (user `cairn-admin`, group `system:masters`), credentials embedded. */
  readonly kubeconfigPath: string;
  /** The CA that signed kube-apiserver's serving certificate: what clients trust. */
  readonly servingCaPem: string;
  /** The CA of `--client-ca-file`: x509 users of kube-apiserver. */
  readonly clientCaPem: string;
  /** Its key, to mint client certificates (e.g. `CN=cairn` for Cairn's delegated auth). */
  readonly clientCaKeyPem: string;
  /** The admin client certificate (`system:masters`). */
  readonly admin: IssuedCertificate;
  /** The CA of `--requestheader-client-ca-file`, which signed the proxy client certificate. */
  readonly frontProxyCaPem: string;
  /** Its key, to mint other front-proxy client certificates (e.g. one with a name not allowed). */
  readonly frontProxyCaKeyPem: string;
  /** The aggregator's proxy client certificate (`CN=front-proxy-client`). */
  readonly proxyClient: IssuedCertificate;
  /** The `--requestheader-allowed-names`. */
  readonly allowedNames: readonly string[];
  /** The processes' ids, for their CPU time and memory in /proc (the bench). */
  readonly pids: { readonly apiserver: number; readonly etcd: number };
  /** Environment for a kubectl against this control plane: KUBECONFIG, a private HOME and KUBECACHEDIR. */
  kubectlEnv(): NodeJS.ProcessEnv;
  /** Runs kubectl ({@link controlPlaneKubectl} unless `binary` is given) against this control plane. */
  kubectl(args: readonly string[], binary?: string): Promise<RunResult>;
  /** The last lines of kube-apiserver's and etcd's logs, for failure messages. */
  logTail(lines?: number): Promise<string>;
  /** Stops kube-apiserver, then etcd (SIGTERM, SIGKILL after a grace period), and removes the directory. Idempotent. */
  stop(): Promise<void>;
}

/** Options of {@link startKubeControlPlane}. */
export interface KubeControlPlaneOptions {
  /** Log progress lines (e.g. to stderr); silent by default. */
  readonly log?: (line: string) => void;
  /** How long kube-apiserver may take to be ready and create namespace `default`; 120 s by default. */
  readonly readyTimeoutMs?: number;
  /** kube-apiserver's `--request-timeout` (a Go duration); its default, `1m0s`, when unset. */
  readonly requestTimeout?: string;
  /** More kube-apiserver flags, after the ones above (e.g. `--tracing-config-file=FILE`). */
  readonly apiserverArgs?: readonly string[];
  /**
   * Whether etcd syncs its writes to disk as in a cluster. Off by default: the tests need
   * no durability, and fsync would slow every write to the disk's pace; the bench turns
   * it on to compare with Cairn on a PostgreSQL that syncs.
   */
  readonly etcdFsync?: boolean;
}

/**
 * The kubectl to drive kube-apiserver 1.34 with: the newest versioned binary beside the
 * dispatcher (`kubectl.1.33`, inside kubectl's one-minor skew). The dispatcher on PATH has
 * no `kubectl.1.34` to hand over to and runs itself, a 1.32, two minors behind.
 */
export function controlPlaneKubectl(): string {
  if (kubectlOnPath === undefined) return 'kubectl';
  const newest = versionedKubectl(Math.max(...kubectlMinors));
  return existsSync(newest) ? newest : kubectlOnPath;
}

const ALLOWED_NAMES = Object.freeze(['front-proxy-client']);
const ETCD_READY_MS = 30_000;
const STOP_GRACE_MS = 15_000;
const START_ATTEMPTS = 3;
const LOG_TAIL_LINES = 30;

/**
 * Generates a PKI, starts etcd (fresh data directory, no fsync unless asked) and kube-apiserver on free
 * loopback ports, waits for `/readyz`, namespace `default` and the
 * `kube-system/extension-apiserver-authentication` ConfigMap, and writes an admin
 * kubeconfig. On failure everything started is stopped before the promise rejects.
 *
 * @example
 * const plane = await startKubeControlPlane(inject('goPrograms'));
 * try {
 *   await plane.kubectl(['get', 'namespaces']);
 * } finally {
 *   await plane.stop();
 * }
 */
export async function startKubeControlPlane(binaries: GoPrograms, options: KubeControlPlaneOptions = {}): Promise<KubeControlPlane> {
  const directory = await mkdtemp(join(tmpdir(), 'cairn-kube-'));
  const plane = new LocalControlPlane(binaries, directory, options);
  try {
    await plane.start();
    return plane;
  } catch (error) {
    const logs = await plane.logTail().catch(() => '');
    await plane.stop().catch(() => undefined);
    throw new Error(`${(error as Error).message}\n${logs}`, { cause: error });
  }
}

class LocalControlPlane implements KubeControlPlane {
  url = '';
  etcdUrl = '';
  servingCaPem = '';
  clientCaPem = '';
  clientCaKeyPem = '';
  admin: IssuedCertificate = { certPem: '', keyPem: '' };
  frontProxyCaPem = '';
  frontProxyCaKeyPem = '';
  proxyClient: IssuedCertificate = { certPem: '', keyPem: '' };
  readonly allowedNames = ALLOWED_NAMES;
  readonly kubeconfigPath: string;
  readonly #pki: PkiPaths;
  readonly #etcdLog: string;
  readonly #apiserverLog: string;
  #etcd: ChildProcess | undefined;
  #apiserver: ChildProcess | undefined;
  #stopped: Promise<void> | undefined;

  constructor(
    readonly binaries: GoPrograms,
    readonly directory: string,
    readonly options: KubeControlPlaneOptions,
  ) {
    this.kubeconfigPath = join(directory, 'kubeconfig');
    this.#pki = pkiPaths(join(directory, 'pki'));
    this.#etcdLog = join(directory, 'etcd.log');
    this.#apiserverLog = join(directory, 'kube-apiserver.log');
  }

  #log(line: string): void {
    this.options.log?.(line);
  }

  async start(): Promise<void> {
    await this.#writePki();
    await this.#startEtcd();
    await this.#startApiserver();
    await this.#writeKubeconfig();
  }

  /**
   * The cluster PKI, from src/server/pki.ts: one `ensurePki` gives the serving CA and
   * kube-apiserver's serving certificate, plus the client CA and the admin certificate
   * (`system:masters`); a second, separate one provides the front-proxy CA (its client CA),
   * which signs the proxy client certificate. A separate front-proxy CA is what
   * kube-apiserver expects: a CA shared with `--client-ca-file` would let any x509 user
   * act as the front proxy.
   */
  async #writePki(): Promise<void> {
    const cluster = await ensurePki(this.#pki.clusterDir, { hosts: ['127.0.0.1', 'localhost', '10.0.0.1', 'kubernetes.default.svc'] });
    const frontProxy = await ensurePki(this.#pki.frontProxyDir, { hosts: ['localhost'] });
    this.servingCaPem = cluster.servingCaPem;
    this.clientCaPem = cluster.clientCaPem;
    this.clientCaKeyPem = cluster.clientCaKeyPem;
    this.admin = { certPem: cluster.adminCertPem, keyPem: cluster.adminKeyPem };
    this.frontProxyCaPem = frontProxy.clientCaPem;
    this.frontProxyCaKeyPem = frontProxy.clientCaKeyPem;
    this.proxyClient = issueClientCertificate(frontProxy.clientCaPem, frontProxy.clientCaKeyPem, { commonName: 'front-proxy-client' });
    const serviceAccountKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    await Promise.all([
      writeFile(this.#pki.proxyClientCert, this.proxyClient.certPem),
      writeFile(this.#pki.proxyClientKey, this.proxyClient.keyPem, { mode: 0o600 }),
      writeFile(this.#pki.serviceAccountKey, serviceAccountKey, { mode: 0o600 }),
    ]);
  }

  async #startEtcd(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const [clientPort, peerPort] = [await freeLoopbackPort(), await freeLoopbackPort()];
      const clientUrl = `http://127.0.0.1:${clientPort}`;
      const peerUrl = `http://127.0.0.1:${peerPort}`;
      const dataDir = join(this.directory, 'etcd');
      await rm(dataDir, { recursive: true, force: true });
      await mkdir(dataDir, { mode: 0o700 });
      this.#log(`etcd: starting on ${clientUrl}`);
      const child = spawnLogged(
        this.binaries.etcd,
        [
          '--name=default',
          `--data-dir=${dataDir}`,
          `--listen-client-urls=${clientUrl}`,
          `--advertise-client-urls=${clientUrl}`,
          `--listen-peer-urls=${peerUrl}`,
          `--initial-advertise-peer-urls=${peerUrl}`,
          `--initial-cluster=default=${peerUrl}`,
          ...(this.options.etcdFsync === true ? [] : ['--unsafe-no-fsync']),
          '--log-level=warn',
        ],
        this.#etcdLog,
      );
      this.#etcd = child;
      const healthy = await waitUntil(ETCD_READY_MS, child, async () => {
        const body = await httpGet(`${clientUrl}/health`);
        return body !== undefined && body.status === 200 && body.text.includes('"health":"true"');
      });
      if (healthy === 'ready') {
        this.etcdUrl = clientUrl;
        return;
      }
      await stopChild(child);
      const log = await readFile(this.#etcdLog, 'utf8').catch(() => '');
      if (healthy === 'exited' && /address already in use/.test(log) && attempt < START_ATTEMPTS) continue;
      throw new Error(`etcd did not become healthy on ${clientUrl} (${healthy})`);
    }
  }

  async #startApiserver(): Promise<void> {
    const readyTimeout = this.options.readyTimeoutMs ?? 120_000;
    for (let attempt = 1; ; attempt++) {
      const port = await freeLoopbackPort();
      const url = `https://127.0.0.1:${port}`;
      this.#log(`kube-apiserver: starting on ${url}`);
      const started = Date.now();
      const child = spawnLogged(this.binaries.kubeApiserver, this.#apiserverArgs(port), this.#apiserverLog);
      this.#apiserver = child;
      const ready = await waitUntil(readyTimeout, child, async () => (await this.#get(url, '/readyz'))?.status === 200);
      if (ready === 'ready') {
        this.url = url;
        this.#log(`kube-apiserver: ready after ${Date.now() - started} ms`);
        break;
      }
      await stopChild(child);
      const log = await readFile(this.#apiserverLog, 'utf8').catch(() => '');
      if (ready === 'exited' && /address already in use/.test(log) && attempt < START_ATTEMPTS) continue;
      throw new Error(`kube-apiserver did not become ready on ${url} within ${readyTimeout} ms (${ready})`);
    }
    // Created by post-start hooks after /readyz: tests flake on them otherwise.
    for (const path of ['/api/v1/namespaces/default', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication']) {
      const found = await waitUntil(readyTimeout, this.#apiserver, async () => (await this.#get(this.url, path))?.status === 200);
      if (found !== 'ready') throw new Error(`kube-apiserver: GET ${path} did not succeed (${found})`);
    }
  }

  #apiserverArgs(port: number): string[] {
    const pki = this.#pki;
    return [
      `--etcd-servers=${this.etcdUrl}`,
      '--bind-address=127.0.0.1',
      // Mandatory on a machine without a default route.
      '--advertise-address=127.0.0.1',
      `--secure-port=${port}`,
      `--cert-dir=${join(this.directory, 'kube-apiserver-certs')}`,
      `--tls-cert-file=${pki.servingCert}`,
      `--tls-private-key-file=${pki.servingKey}`,
      `--client-ca-file=${pki.clientCa}`,
      `--service-account-issuer=https://127.0.0.1:${port}`,
      `--service-account-key-file=${pki.serviceAccountKey}`,
      `--service-account-signing-key-file=${pki.serviceAccountKey}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      '--authorization-mode=RBAC',
      // The `kubernetes` Endpoints would hold 127.0.0.1, which Endpoints validation refuses.
      '--endpoint-reconciler-type=none',
      // No controller manager creates default service accounts.
      '--disable-admission-plugins=ServiceAccount',
      `--requestheader-client-ca-file=${pki.frontProxyCa}`,
      `--requestheader-allowed-names=${ALLOWED_NAMES.join(',')}`,
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      '--requestheader-uid-headers=X-Remote-Uid',
      `--proxy-client-cert-file=${pki.proxyClientCert}`,
      `--proxy-client-key-file=${pki.proxyClientKey}`,
      // ExternalName services are resolved only by the ClusterIP resolver.
      '--enable-aggregator-routing=false',
      ...(this.options.requestTimeout === undefined ? [] : [`--request-timeout=${this.options.requestTimeout}`]),
      ...(this.options.apiserverArgs ?? []),
    ];
  }

  /** GET with the admin certificate, trusting the serving CA; undefined when the connection fails. */
  #get(url: string, path: string): Promise<HttpAnswer | undefined> {
    return httpGet(`${url}${path}`, { ca: this.servingCaPem, cert: this.admin.certPem, key: this.admin.keyPem });
  }

  async #writeKubeconfig(): Promise<void> {
    const base64 = (pem: string): string => Buffer.from(pem).toString('base64');
    const kubeconfig = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'cairn-test', cluster: { server: this.url, 'certificate-authority-data': base64(this.servingCaPem) } }],
      users: [{ name: 'admin', user: { 'client-certificate-data': base64(this.admin.certPem), 'client-key-data': base64(this.admin.keyPem) } }],
      contexts: [{ name: 'cairn-test', context: { cluster: 'cairn-test', user: 'admin' } }],
      'current-context': 'cairn-test',
    };
    await writeFile(this.kubeconfigPath, stringify(kubeconfig), { mode: 0o600 });
    await mkdir(join(this.directory, 'home'), { recursive: true });
  }

  kubectlEnv(): NodeJS.ProcessEnv {
    return {
      ...process.env,
      KUBECONFIG: this.kubeconfigPath,
      HOME: join(this.directory, 'home'),
      // kubectl caches discovery for hours, keyed by host: never share it between runs.
      KUBECACHEDIR: join(this.directory, 'kubectl-cache'),
    };
  }

  kubectl(args: readonly string[], binary: string = controlPlaneKubectl()): Promise<RunResult> {
    return runKubectl(binary, args, this.kubectlEnv());
  }

  async logTail(lines: number = LOG_TAIL_LINES): Promise<string> {
    const tail = async (path: string): Promise<string> => {
      const text = await readFile(path, 'utf8').catch(() => '');
      return text.trimEnd().split('\n').slice(-lines).join('\n');
    };
    return `--- kube-apiserver log (tail) ---\n${await tail(this.#apiserverLog)}\n--- etcd log (tail) ---\n${await tail(this.#etcdLog)}`;
  }

  get pids(): { apiserver: number; etcd: number } {
    const apiserver = this.#apiserver?.pid;
    const etcd = this.#etcd?.pid;
    if (apiserver === undefined || etcd === undefined) throw new Error('the control plane has not started');
    return { apiserver, etcd };
  }

  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      try {
        if (this.#apiserver !== undefined) await stopChild(this.#apiserver);
        if (this.#etcd !== undefined) await stopChild(this.#etcd);
      } finally {
        liveChildren.delete(this.#apiserver);
        liveChildren.delete(this.#etcd);
        await rm(this.directory, { recursive: true, force: true });
      }
    })();
    return this.#stopped;
  }
}

/** The PKI files: {@link ensurePki}'s, in two directories, and the ones written here. */
interface PkiPaths {
  readonly clusterDir: string;
  readonly frontProxyDir: string;
  readonly clientCa: string;
  readonly servingCert: string;
  readonly servingKey: string;
  readonly frontProxyCa: string;
  readonly proxyClientCert: string;
  readonly proxyClientKey: string;
  readonly serviceAccountKey: string;
}

function pkiPaths(pki: string): PkiPaths {
  const clusterDir = join(pki, 'cluster');
  const frontProxyDir = join(pki, 'front-proxy');
  return {
    clusterDir,
    frontProxyDir,
    clientCa: join(clusterDir, 'client-ca.crt'),
    servingCert: join(clusterDir, 'serving.crt'),
    servingKey: join(clusterDir, 'serving.key'),
    frontProxyCa: join(frontProxyDir, 'client-ca.crt'),
    proxyClientCert: join(pki, 'front-proxy-client.crt'),
    proxyClientKey: join(pki, 'front-proxy-client.key'),
    serviceAccountKey: join(pki, 'service-account.key'),
  };
}

/** Processes started here and not yet stopped: killed when the test process exits. */
const liveChildren = new Set<ChildProcess | undefined>();
let exitHookRegistered = false;

/** Spawns a server with stdout and stderr appended to `logFile`. */
function spawnLogged(program: string, args: readonly string[], logFile: string): ChildProcess {
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(program, [...args], { stdio: ['ignore', fd, fd] });
    child.once('error', () => undefined); // surfaces as 'exited' in waitUntil
    liveChildren.add(child);
    if (!exitHookRegistered) {
      exitHookRegistered = true;
      process.once('exit', () => {
        for (const c of liveChildren) c?.kill('SIGKILL');
      });
    }
    return child;
  } finally {
    closeSync(fd);
  }
}

/** SIGTERM, then SIGKILL after a grace period; resolves once the process has exited. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
  liveChildren.delete(child);
}

/** Polls `check` until it holds ('ready'), the process exits ('exited') or time runs out ('timed out'). */
async function waitUntil(timeoutMs: number, child: ChildProcess | undefined, check: () => Promise<boolean>): Promise<'ready' | 'exited' | 'timed out'> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child !== undefined && (child.exitCode !== null || child.signalCode !== null)) return 'exited';
    if (await check().catch(() => false)) return 'ready';
    if (Date.now() > deadline) return 'timed out';
    await sleep(250);
  }
}

interface HttpAnswer {
  readonly status: number;
  readonly text: string;
}

interface TlsMaterial {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

/** One GET with a 5 s timeout; undefined when the connection fails. */
async function httpGet(url: string, tls?: TlsMaterial): Promise<HttpAnswer | undefined> {
  if (tls === undefined) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      return { status: response.status, text: await response.text() };
    } catch {
      return undefined;
    }
  }
  return new Promise((resolve) => {
    const req = httpsRequest(url, { ...tls, method: 'GET', timeout: 5_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.once('error', () => resolve(undefined));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(undefined));
    req.end();
  });
}
