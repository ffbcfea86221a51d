/**
 * Cairn registered behind a real kube-apiserver ({@link startKubeControlPlane}) as the
 * aggregated deployment registers it: the serving certificate `npm run certs` issues for
 * `cairn-apiserver.cairn-system.svc`, the front-proxy trust of kube-apiserver's
 * `--requestheader-*` flags, and the APIServices of apiservice/ (one per served version of
 * cairn.dev) with their `caBundle`.
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { writeApiServiceCerts } from '../../src/server/apiservice-certs.js';
import { parseConfig } from '../../src/server/config.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { cairnDelegationKubeconfig } from './cairn-identity.js';
import type { KubeControlPlane } from './kube-control-plane.js';
import { testDatabaseUrl } from './test-database.js';

/** The Service and namespace the manifests in apiservice/ name, and the APIService of the preferred version. */
export const cairnService = 'cairn-apiserver';
export const cairnNamespace = 'cairn-system';
export const cairnApiService = `${cairnGroup.versions[0]}.${cairnGroup.name}`;
/** The APIService of every served version, preferred first: `v1.cairn.dev`, `v1beta1.cairn.dev`, `v1alpha1.cairn.dev`. */
export const cairnApiServices: readonly string[] = cairnGroup.versions.map((version) => `${version}.${cairnGroup.name}`);

const manifestsDir = join(import.meta.dirname, '..', '..', 'apiservice');
const LOG_LINES = 200;

/** A Cairn that kube-apiserver's aggregator reaches and reports Available. */
export interface AggregatedCairn {
  readonly server: RunningServer;
  /** Cairn's last log lines (JSON, level info), for failure messages. */
  logTail(lines?: number): string;
  /** Stops Cairn and removes its files (the control plane is the caller's). */
  stop(): Promise<void>;
}

/** Options of {@link startAggregatedCairn}. */
export interface AggregatedCairnOptions {
  /** How long the APIService and the aggregated discovery may take; 90 s by default. */
  readonly availableTimeoutMs?: number;
  /**
   * Delegate authentication and authorization to the control plane, as in a cluster:
   * `--authentication-kubeconfig` and `--authorization-kubeconfig` with Cairn's own
   * identity ({@link cairnDelegationKubeconfig}), with the given cache TTL for every
   * TokenReview and SubjectAccessReview answer (a Go duration, e.g. `1s`). Off by default.
   */
  readonly delegation?: { readonly cacheTtl: string };
  /** More flags for Cairn (e.g. `--audit-log-path`). */
  readonly args?: readonly string[];
  /** The database Cairn stores in, for a test that reads its rows; a fresh one by default. */
  readonly databaseUrl?: string;
}

/**
 * Issues Cairn's serving CA and certificate with `npm run certs`' function, starts Cairn on
 * PostgreSQL trusting the control plane's front proxy, applies the Namespace, an
 * ExternalName Service and every APIService in apiservice/ (with the caBundle and Cairn's
 * port), then waits until each is `Available=True` and kube-apiserver's aggregated discovery
 * and OpenAPI v3 list every version. Throws with the APIServices' conditions and both
 * servers' logs when it does not get there.
 */
export async function startAggregatedCairn(plane: KubeControlPlane, options: AggregatedCairnOptions = {}): Promise<AggregatedCairn> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-aggregated-'));
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString('utf8').trimEnd().split('\n'));
      if (logs.length > LOG_LINES) logs.splice(0, logs.length - LOG_LINES);
      done();
    },
  });
  const logTail = (lines = 40): string => `--- Cairn log (tail) ---\n${logs.slice(-lines).join('\n')}`;
  let server: RunningServer | undefined;
  const stop = async (): Promise<void> => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  };

  try {
    // The manifests this needs, copied so `writeApiServiceCerts` can write their caBundle: the
    // Namespace and every file holding an APIService, whatever it is called.
    const manifests = join(dir, 'apiservice');
    await mkdir(manifests);
    const apiServiceFiles = await filesHoldingApiServices();
    for (const file of ['00-namespace.yaml', ...apiServiceFiles]) await copyFile(join(manifestsDir, file), join(manifests, file));
    const certs = await writeApiServiceCerts({ service: cairnService, namespace: cairnNamespace, manifestsDir: manifests, certsDir: join(dir, 'certs') });
    const frontProxyCaFile = join(dir, 'front-proxy-ca.crt');
    await writeFile(frontProxyCaFile, plane.frontProxyCaPem);

    // The X-Remote-* header names are left at their defaults: the ones the aggregator sends.
    const args = [
      '--port=0',
      `--data-dir=${join(dir, 'data')}`,
      `--database-url=${options.databaseUrl ?? (await testDatabaseUrl())}`,
      '--no-controller',
      `--tls-cert-file=${certs.certFile}`,
      `--tls-private-key-file=${certs.keyFile}`,
      `--requestheader-client-ca-file=${frontProxyCaFile}`,
      `--requestheader-allowed-names=${plane.allowedNames.join(',')}`,
    ];
    if (options.delegation) {
      const kubeconfig = await cairnDelegationKubeconfig(plane, dir);
      const ttl = options.delegation.cacheTtl;
      args.push(
        `--authentication-kubeconfig=${kubeconfig}`,
        `--authorization-kubeconfig=${kubeconfig}`,
        `--authentication-token-webhook-cache-ttl=${ttl}`,
        `--authorization-webhook-cache-authorized-ttl=${ttl}`,
        `--authorization-webhook-cache-unauthorized-ttl=${ttl}`,
      );
    }
    args.push(...(options.args ?? []));
    server = await startServer(parseConfig(args, {}), pino({ level: 'info' }, sink));
    await server.ready;

    const apiServices: { metadata: { name: string }; spec: { service: { port: number } } }[] = [];
    for (const file of apiServiceFiles) {
      for (const document of parseAllDocuments(await readFile(join(manifests, file), 'utf8'))) {
        const object = document.toJS() as { kind?: string; metadata: { name: string }; spec: { service: { port: number } } };
        if (object.kind === 'APIService') apiServices.push(object);
      }
    }
    const names = apiServices.map((apiService) => apiService.metadata.name).sort();
    if (names.join() !== [...cairnApiServices].sort().join()) {
      throw new Error(`apiservice/ registers ${names.join(', ')}; Cairn serves ${cairnApiServices.join(', ')}`);
    }
    for (const apiService of apiServices) apiService.spec.service.port = server.port;
    const objects = [
      parse(await readFile(join(manifests, '00-namespace.yaml'), 'utf8')),
      // Not apiservice/31-service.yaml: a ClusterIP Service routes only through kube-proxy,
      // which this machine does not run. For an ExternalName Service the aggregator dials
      // <externalName>:<APIService port> and still verifies the certificate for
      // cairn-apiserver.cairn-system.svc with the caBundle.
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: cairnService, namespace: cairnNamespace },
        spec: { type: 'ExternalName', externalName: 'localhost' },
      },
      ...apiServices,
    ];
    const file = join(dir, 'register.yaml');
    await writeFile(file, objects.map((object) => stringify(object)).join('---\n'));
    const applied = await plane.kubectl(['apply', '-f', file]);
    if (applied.code !== 0) throw new Error(`kubectl apply exited ${applied.code}: ${applied.stderr}`);

    const timeoutMs = options.availableTimeoutMs ?? 90_000;
    /** Each of the APIServices' conditions, by name. */
    const conditions = async (): Promise<Map<string, readonly { type: string; status: string }[]>> => {
      const got = await plane.kubectl(['get', 'apiservices', ...cairnApiServices, '-o', 'json']);
      const list = JSON.parse(got.stdout) as { items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[] };
      return new Map(list.items.map((item) => [item.metadata.name, item.status?.conditions ?? []]));
    };
    const explain = async (what: string): Promise<string> => {
      const current = await conditions().catch((error: unknown) => String(error));
      const shown = typeof current === 'string' ? current : JSON.stringify(Object.fromEntries(current));
      return `${what}\nAPIService conditions: ${shown}\n${await plane.logTail()}\n${logTail()}`;
    };
    // Each version is its own APIService, probed on its own (GET /apis/cairn.dev/<version>): every one must pass.
    const available = await poll(timeoutMs, async () => {
      const current = await conditions();
      return cairnApiServices.every((name) => current.get(name)?.some((c) => c.type === 'Available' && c.status === 'True'));
    });
    if (!available) throw new Error(await explain(`APIServices ${cairnApiServices.join(', ')} not all Available=True within ${timeoutMs} ms`));
    // The aggregator refetches discovery on the status update; a minute at worst. api-versions lists every version discovered.
    const discovered = await poll(timeoutMs, async () => {
      const resources = await plane.kubectl(['api-resources', '--api-group=cairn.dev', '--no-headers']);
      const versions = await plane.kubectl(['api-versions']);
      const listed = versions.stdout.split('\n');
      return (
        resources.code === 0 &&
        /^pipelines\s/m.test(resources.stdout) &&
        cairnGroup.versions.every((version) => listed.includes(`${cairnGroup.name}/${version}`))
      );
    });
    if (!discovered) throw new Error(await explain(`kube-apiserver's discovery did not list every version of cairn.dev within ${timeoutMs} ms`));
    // kubectl's default validation reads the group's OpenAPI v3 before create and apply; the
    // aggregator downloads it a second after an APIService changes.
    const documented = await poll(timeoutMs, async () => {
      const got = await plane.kubectl(['get', '--raw', '/openapi/v3']);
      if (got.code !== 0) return false;
      const { paths } = JSON.parse(got.stdout) as { paths: object };
      return cairnGroup.versions.every((version) => `apis/${cairnGroup.name}/${version}` in paths);
    });
    if (!documented) throw new Error(await explain(`kube-apiserver's /openapi/v3 did not list every version of cairn.dev within ${timeoutMs} ms`));
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  const running = server;
  return { server: running, logTail, stop };
}

/** The files of apiservice/ holding an APIService, in name order. */
async function filesHoldingApiServices(): Promise<string[]> {
  const files: string[] = [];
  for (const file of (await readdir(manifestsDir)).filter((name) => /\.ya?ml$/.test(name)).sort()) {
    const documents = parseAllDocuments(await readFile(join(manifestsDir, file), 'utf8'));
    if (documents.some((document) => (document.toJS() as { kind?: unknown } | null)?.kind === 'APIService')) files.push(file);
  }
  return files;
}

/** Calls `check` every second until it holds (true) or `timeoutMs` ran out (false). */
async function poll(timeoutMs: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await sleep(1000);
  }
}
