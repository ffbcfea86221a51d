/**
 * Wires the process together: TLS material and kubeconfig, the HTTPS listener,
 * the database and its migrations, the object store, the registry, compaction,
 * readiness, the in-process sample controller and graceful shutdown.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import type { ApiGroup } from '../apis/api-resource.js';
import { cairnGroup } from '../apis/cairn/register.js';
import type { AuditBackend } from '../auth/audit.js';
import { parseCertificates } from '../auth/certificate-verifier.js';
import { defaultAuthorizer } from '../auth/default-authorizer.js';
import { RequestHeaderAuthenticator } from '../auth/request-header-authenticator.js';
import type { Authenticator } from '../auth/user-info.js';
import { X509Authenticator } from '../auth/x509-authenticator.js';
import { createCairnClient } from '../client/cairn-client.js';
import { loadKubeconfig } from '../client/kubeconfig.js';
import { startController, type RunningController } from '../controller/controller.js';
import { createApp } from '../http/app.js';
import type { HealthCheck } from '../http/health.js';
import { Registry } from '../registry/registry.js';
import type { Database } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { SqlObjectStore } from '../storage/sql-object-store.js';
import type { RequestHeaderConfig, ServerConfig } from './config.js';
import { writeKubeconfig } from './kubeconfig.js';
import { openDatabase } from './open-database.js';
import { ensurePki, loadServingCertificate, type Pki } from './pki.js';
import { listen, type Listener } from './serving.js';

/** The groups this server serves. */
export const servedGroups: readonly ApiGroup[] = [cairnGroup];

/** A running server. */
export interface RunningServer {
  readonly port: number;
  /** `https://127.0.0.1:PORT` */
  readonly url: string;
  readonly pki: Pki;
  readonly kubeconfigPath: string;
  /** Resolves once storage is migrated and the API can serve. */
  readonly ready: Promise<void>;
  /** Graceful shutdown: readyz fails, watches end, connections close, the database closes. */
  close(): Promise<void>;
}

const databaseRetryMs = 1000;
const pingCacheMs = 1000;

/** Pings the database at most once a second; readyz and data requests share the answer. */
function databaseCheck(database: () => Database | undefined): HealthCheck {
  let last = 0;
  let healthy: Promise<boolean> = Promise.resolve(false);
  return {
    name: 'database',
    check: () => {
      const db = database();
      if (!db) return false;
      if (Date.now() - last > pingCacheMs) {
        last = Date.now();
        healthy = db.ping().then(
          () => true,
          () => false,
        );
      }
      return healthy;
    },
  };
}

/**
 * The generated TLS material under the data directory, serving with the certificate of
 * `--tls-cert-file` instead when one is given (the kubeconfig then trusts its CA).
 */
async function servingPki(config: ServerConfig): Promise<Pki> {
  const generated = await ensurePki(join(config.dataDir, 'pki'), { hosts: ['localhost', '127.0.0.1', '::1', ...config.tlsSans] });
  if (config.tlsCertFile === undefined || config.tlsPrivateKeyFile === undefined) return generated;
  const serving = await loadServingCertificate(config.tlsCertFile, config.tlsPrivateKeyFile);
  return Object.freeze({ ...generated, servingCaPem: serving.caPem, servingCertPem: serving.certPem, servingKeyPem: serving.keyPem });
}

/** What a server is given beside its configuration; tests plug in here. */
export interface ServerSeams {
  /** Where audit events go; nowhere by default. */
  readonly audit?: AuditBackend;
}

/** The front-proxy CA bundle, when one is configured. */
async function loadRequestHeaderCa(config: RequestHeaderConfig, clientCaPem: string): Promise<string | undefined> {
  if (config.clientCaFile === undefined) return undefined;
  const pem = await readFile(config.clientCaFile, 'utf8');
  const clientCas = new Set(parseCertificates(clientCaPem).map((ca) => ca.fingerprint256));
  // As kube-apiserver refuses it: with a CA shared and no allowed names, every client certificate could name any user.
  if (config.allowedNames.length === 0 && parseCertificates(pem).some((ca) => clientCas.has(ca.fingerprint256)))
    throw new Error('the client CA and --requestheader-client-ca-file contain overlapping certificates; --requestheader-allowed-names must be specified');
  return pem;
}

/** Starts the server described by `config`. */
export async function startServer(config: ServerConfig, logger: Logger = pino({ level: config.logLevel }), seams: ServerSeams = {}): Promise<RunningServer> {
  await mkdir(config.dataDir, { recursive: true });
  const pki = await servingPki(config);
  const shutdown = new AbortController();
  let registry: Registry | undefined;
  let database: Database | undefined;
  let store: SqlObjectStore | undefined;
  let migrated = false;

  // Each authenticator verifies against its own CAs; the listener asks for certificates from all of them.
  const requestHeaderCaPem = await loadRequestHeaderCa(config.requestHeader, pki.clientCaPem);
  const authenticators: Authenticator[] = [new X509Authenticator({ clientCaPems: [pki.clientCaPem] })];
  // The front proxy comes first, as in kube's delegating authenticator: its certificate says nothing of the user, its headers do.
  if (requestHeaderCaPem !== undefined) authenticators.unshift(new RequestHeaderAuthenticator({ ...config.requestHeader, clientCaPems: [requestHeaderCaPem] }));
  const clientCaPems = [pki.clientCaPem, ...(requestHeaderCaPem !== undefined ? [requestHeaderCaPem] : [])];
  const app = createApp({
    groups: servedGroups,
    registry: () => registry,
    authenticators,
    authorizer: defaultAuthorizer(),
    audit: seams.audit,
    livezChecks: [{ name: 'ping', check: () => true }],
    readyzChecks: [
      { name: 'ping', check: () => true },
      { name: 'migrations', check: () => migrated },
      databaseCheck(() => database),
      { name: 'shutdown', check: () => !shutdown.signal.aborted },
    ],
    logger,
    shutdown: shutdown.signal,
    watchBookmarkIntervalMs: config.watchBookmarkIntervalMs,
  });
  const listener: Listener = await listen(
    app.callback(),
    { certPem: pki.servingCertPem, keyPem: pki.servingKeyPem, clientCaPems },
    config.bindAddress,
    config.port,
  );
  const url = `https://127.0.0.1:${listener.port}`;
  const kubeconfigPath = join(config.dataDir, 'kubeconfig');
  await writeKubeconfig(kubeconfigPath, {
    server: url,
    caPem: pki.servingCaPem,
    clientCertPem: pki.adminCertPem,
    clientKeyPem: pki.adminKeyPem,
  });
  logger.info({ url, kubeconfig: kubeconfigPath }, 'listening');
  // In-process, the sample controller is still a client of the API: HTTPS with the admin kubeconfig, never the registry.
  const controllerClient = config.controller ? createCairnClient(await loadKubeconfig(kubeconfigPath)) : undefined;
  let controller: RunningController | undefined;

  let compaction: NodeJS.Timeout | undefined;
  // The listener answers discovery and health at once; the API serves once storage is up.
  const ready = (async () => {
    for (;;) {
      try {
        database ??= await openDatabase(config, logger);
        const applied = await migrateToLatest(database);
        if (applied.length) logger.info({ migrations: applied }, 'migrated');
        migrated = true;
        store = await SqlObjectStore.open(database, { onBackgroundError: (error) => logger.warn({ err: error }, 'event log') });
        registry = new Registry(servedGroups, store);
        break;
      } catch (error) {
        if (shutdown.signal.aborted) throw error;
        logger.warn({ err: error }, 'storage not ready; retrying');
        await new Promise((resolve) => setTimeout(resolve, databaseRetryMs));
      }
    }
    compaction = setInterval(() => {
      store?.compact(config.eventRetentionMs).catch((error: unknown) => logger.warn({ err: error }, 'compaction failed'));
    }, config.compactionIntervalMs);
    compaction.unref();
    logger.info('ready');
    if (controllerClient && !shutdown.signal.aborted) controller = startController(controllerClient, { logger: logger.child({ component: 'controller' }) });
  })();
  ready.catch(() => undefined);

  return {
    port: listener.port,
    url,
    pki,
    kubeconfigPath,
    ready,
    async close() {
      shutdown.abort();
      await controller?.stop();
      controllerClient?.close();
      if (config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
      clearInterval(compaction);
      await store?.close();
      await listener.close(config.shutdownGraceMs);
      await database?.close();
    },
  };
}
