/**
 * Cairn registered behind a real kube-apiserver ({@link startKubeControlPlane}) as the
 * aggregated deployment registers it: the serving certificate `npm run certs` issues for
 * `cairn-apiserver.cairn-system.svc`, the front-proxy trust of kube-apiserver's
 * `--requestheader-*` flags, and the APIService `v1.cairn.dev` with its `caBundle`.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { parse, stringify } from 'yaml';
import { writeApiServiceCerts } from '../../src/server/apiservice-certs.js';
import { parseConfig } from '../../src/server/config.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { cairnDelegationKubeconfig } from './cairn-identity.js';
import type { KubeControlPlane } from './kube-control-plane.js';
import { testDatabaseUrl } from './test-database.js';

/** The Service and namespace the manifests in apiservice/ name, and the APIService. */
export const cairnService = 'cairn-apiserver';
export const cairnNamespace = 'cairn-system';
export const cairnApiService = 'v1.cairn.dev';

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
}

/**
 * Issues Cairn's serving CA and certificate with `npm run certs`' function, starts Cairn on
 * PostgreSQL trusting the control plane's front proxy, applies the Namespace, an
 * ExternalName Service and the APIService `v1.cairn.dev` (the one in apiservice/, with the
 * caBundle and Cairn's port), then waits until the APIService is `Available=True` and
 * kube-apiserver's aggregated discovery and OpenAPI v3 list the group. Throws with the APIService's
 * conditions and both servers' logs when it does not get there.
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
    // The manifests this needs, copied so `writeApiServiceCerts` can write their caBundle.
    const manifests = join(dir, 'apiservice');
    await mkdir(manifests);
    for (const file of ['00-namespace.yaml', '40-apiservice-v1.yaml']) await copyFile(join(manifestsDir, file), join(manifests, file));
    const certs = await writeApiServiceCerts({ service: cairnService, namespace: cairnNamespace, manifestsDir: manifests, certsDir: join(dir, 'certs') });
    const frontProxyCaFile = join(dir, 'front-proxy-ca.crt');
    await writeFile(frontProxyCaFile, plane.frontProxyCaPem);

    // The X-Remote-* header names are left at their defaults: the ones the aggregator sends.
    const args = [
      '--port=0',
      `--data-dir=${join(dir, 'data')}`,
      `--database-url=${await testDatabaseUrl()}`,
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
    server = await startServer(parseConfig(args, {}), pino({ level: 'info' }, sink));
    await server.ready;

    const apiService = parse(await readFile(join(manifests, '40-apiservice-v1.yaml'), 'utf8'));
    apiService.spec.service.port = server.port;
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
      apiService,
    ];
    const file = join(dir, 'register.yaml');
    await writeFile(file, objects.map((object) => stringify(object)).join('---\n'));
    const applied = await plane.kubectl(['apply', '-f', file]);
    if (applied.code !== 0) throw new Error(`kubectl apply exited ${applied.code}: ${applied.stderr}`);

    const timeoutMs = options.availableTimeoutMs ?? 90_000;
    const explain = async (what: string): Promise<string> => {
      const current = await plane.kubectl(['get', 'apiservice', cairnApiService, '-o', 'jsonpath={.status.conditions}']);
      return `${what}\nAPIService ${cairnApiService} conditions: ${current.stdout}${current.stderr}\n${await plane.logTail()}\n${logTail()}`;
    };
    const available = await poll(timeoutMs, async () => {
      const got = await plane.kubectl(['get', 'apiservice', cairnApiService, '-o', 'jsonpath={.status.conditions[?(@.type=="Available")].status}']);
      return got.stdout.trim() === 'True';
    });
    if (!available) throw new Error(await explain(`APIService ${cairnApiService} not Available=True within ${timeoutMs} ms`));
    // The aggregator refetches discovery on the status update; a minute at worst.
    const discovered = await poll(timeoutMs, async () => {
      const got = await plane.kubectl(['api-resources', '--api-group=cairn.dev', '--no-headers']);
      return got.code === 0 && /^pipelines\s/m.test(got.stdout);
    });
    if (!discovered) throw new Error(await explain(`kube-apiserver's discovery did not list cairn.dev within ${timeoutMs} ms`));
    // kubectl's default validation reads the group's OpenAPI v3 before create and apply; the
    // aggregator downloads it a second after the APIService changes.
    const documented = await poll(timeoutMs, async () => {
      const got = await plane.kubectl(['get', '--raw', '/openapi/v3']);
      return got.code === 0 && 'apis/cairn.dev/v1' in (JSON.parse(got.stdout) as { paths: object }).paths;
    });
    if (!documented) throw new Error(await explain(`kube-apiserver's /openapi/v3 did not list apis/cairn.dev/v1 within ${timeoutMs} ms`));
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  const running = server;
  return { server: running, logTail, stop };
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
