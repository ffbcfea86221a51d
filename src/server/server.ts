/**
 * Wires the process together: TLS material and kubeconfig, the HTTPS listener,
 * the database and its migrations, the object store, the registry, compaction,
 * readiness, the in-process sample controller, the garbage collector and graceful shutdown.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { servedGroups } from '../apis/served-groups.js';
import type { AuditBackend } from '../auth/audit.js';
import { BearerTokenAuthenticator, type TokenAuthenticator } from '../auth/bearer-token-authenticator.js';
import { bootstrapPolicy } from '../auth/bootstrap-policy.js';
import { parseCertificates } from '../auth/certificate-verifier.js';
import type { Authorizer } from '../auth/authorizer.js';
import { ClusterAuthentication } from '../auth/cluster-authentication.js';
import { defaultAuthorizer } from '../auth/default-authorizer.js';
import { delegatingAuthorizer } from '../auth/delegating-authorizer.js';
import { defaultAlwaysAllowPaths } from '../auth/path-authorizer.js';
import { parseRbacPolicy, type RbacPolicy } from '../auth/rbac-policy.js';
import { RequestHeaderAuthenticator } from '../auth/request-header-authenticator.js';
import { TokenFileAuthenticator } from '../auth/token-file.js';
import { TokenReviewAuthenticator } from '../auth/token-review-authenticator.js';
import type { Authenticator } from '../auth/user-info.js';
import { X509Authenticator } from '../auth/x509-authenticator.js';
import { createCairnClient } from '../client/cairn-client.js';
import { loadKubeconfig, serviceAccountDir } from '../kubeclient/kubeconfig.js';
import { RestClient } from '../kubeclient/rest-client.js';
import { startController, type RunningController } from '../controller/controller.js';
import { createApp } from '../http/app.js';
import type { HealthCheck } from '../http/health.js';
import { NamespaceLifecycle, type NamespaceLookup } from '../registry/namespace-lifecycle.js';
import { admissionChain } from '../registry/admission.js';
import { objectLookup, Registry } from '../registry/registry.js';
import { WebhookAdmission } from '../registry/webhooks/webhook-admission.js';
import { parseWebhookConfigurations, webhookConfigurations } from '../registry/webhooks/webhook-configuration.js';
import { WebhookConfigurationInformer } from '../registry/webhooks/webhook-configuration-informer.js';
import type { KubeObject } from '../machinery/meta/object.js';
import type { Database } from '../storage/database.js';
import { fsyncEnabled } from '../storage/durability.js';
import { migrateToLatest } from '../storage/migrate.js';
import { SqlObjectStore } from '../storage/sql-object-store.js';
import { refreshStatistics } from '../storage/table-statistics.js';
import type { DelegationConfig, RequestHeaderConfig, ServerConfig } from './config.js';
import { startAuditing } from './auditing.js';
import { writeKubeconfig } from './kubeconfig.js';
import { openDatabase, pgliteDirectory } from './open-database.js';
import { garbageCollectorEnabled, startGarbageCollection, type GarbageCollection } from './garbage-collection.js';
import { serverMetrics } from './server-metrics.js';
import { redactedDatabaseUrl, type StorageDescription } from './start-banner.js';
import { ensurePki, loadServingCertificate, type Pki } from './pki.js';
import { reloadServingCertificate } from './serving-certificate-reloader.js';
import { listen, type Listener } from './serving.js';
import { servingTlsOptions } from './tls-options.js';

export { servedGroups };

/** A running server. */
export interface RunningServer {
  readonly port: number;
  /** `https://127.0.0.1:PORT` */
  readonly url: string;
  readonly pki: Pki;
  readonly kubeconfigPath: string;
  /** Resolves once storage is migrated and the API can serve, with what that storage is. */
  readonly ready: Promise<StorageDescription>;
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
  /** Where audit events go besides `--audit-log-path`, at the levels `--audit-policy-file` says. */
  readonly audit?: AuditBackend;
  /**
   * Where the in-cluster config's ServiceAccount token and CA are read from; the path
   * kubelet mounts them at ({@link serviceAccountDir}) unless a test gives a directory.
   */
  readonly serviceAccountDir?: string;
}

/** The front-proxy CA bundle, when one is configured. */
async function loadRequestHeaderCa(config: RequestHeaderConfig, clientCaPems: readonly string[]): Promise<string | undefined> {
  if (config.clientCaFile === undefined) return undefined;
  const pem = await readFile(config.clientCaFile, 'utf8');
  const clientCas = new Set(clientCaPems.flatMap(parseCertificates).map((ca) => ca.fingerprint256));
  // As kube-apiserver refuses it: with a CA shared and no allowed names, every client certificate could name any user.
  if (config.allowedNames.length === 0 && parseCertificates(pem).some((ca) => clientCas.has(ca.fingerprint256)))
    throw new Error('the client CA and --requestheader-client-ca-file contain overlapping certificates; --requestheader-allowed-names must be specified');
  return pem;
}

/** The CA bundle of `--client-ca-file`, when one is given; throws naming the flag when it holds no certificate. */
async function loadClientCa(path: string | undefined): Promise<string | undefined> {
  if (path === undefined) return undefined;
  const pem = await readFile(path, 'utf8');
  try {
    parseCertificates(pem);
  } catch (error) {
    throw new Error(`--client-ca-file ${path}: ${(error as Error).message}`, { cause: error });
  }
  return pem;
}

/** The roles and bindings of `--authorization-policy-file`; throws naming the file and what is wrong in it. */
async function loadPolicy(path: string | undefined): Promise<RbacPolicy | undefined> {
  if (path === undefined) return undefined;
  try {
    return parseRbacPolicy(await readFile(path, 'utf8'), bootstrapPolicy);
  } catch (error) {
    throw new Error(`--authorization-policy-file ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** NamespaceLifecycle's view of the main API server: a namespace's phase, read with one GET. */
function namespaceLookup(client: RestClient): NamespaceLookup {
  return async (name) => {
    const answer = await client.request('GET', `/api/v1/namespaces/${encodeURIComponent(name)}`, undefined, { timeoutMs: 10_000 });
    if (answer.status === 404) return undefined;
    if (answer.status !== 200) throw new Error(`GET namespace ${name}: HTTP ${answer.status}`);
    return (answer.body as { status?: { phase?: string } }).status?.phase === 'Terminating' ? 'Terminating' : 'Active';
  };
}

/**
 * A namespace's labels, for webhooks' namespaceSelector: the main API server's in a
 * cluster; standalone, where a namespace is only a name, the label kube gives every namespace.
 */
function namespaceLabels(client: RestClient | undefined): (name: string) => Promise<Record<string, string>> {
  if (!client) return (name) => Promise.resolve({ 'kubernetes.io/metadata.name': name });
  return async (name) => {
    const answer = await client.request('GET', `/api/v1/namespaces/${encodeURIComponent(name)}`, undefined, { timeoutMs: 10_000 });
    if (answer.status === 404) return {};
    if (answer.status !== 200) throw new Error(`GET namespace ${name}: HTTP ${answer.status}`);
    return (answer.body as { metadata?: { labels?: Record<string, string> } }).metadata?.labels ?? {};
  };
}

/** The configurations of `--admission-webhook-config-file`, read once at startup; none without it. */
async function webhookFile(file: string | undefined): Promise<KubeObject[]> {
  if (file === undefined) return [];
  try {
    return parseWebhookConfigurations(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(`--admission-webhook-config-file ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/** What delegation to the main API server adds: clients, the cluster's trust, and who authorizes. */
interface Delegation {
  readonly authenticationClient?: RestClient;
  readonly authorizationClient?: RestClient;
  readonly cluster?: ClusterAuthentication;
  readonly authorizer: Authorizer;
}

/**
 * Clients of the main API server from `--authentication-kubeconfig` and
 * `--authorization-kubeconfig`, and the authorizer: SubjectAccessReview when delegated,
 * RBAC over the bootstrap policy and `policy` otherwise.
 */
async function delegation(
  config: DelegationConfig,
  policy: RbacPolicy | undefined,
  requestHeaderFromConfigMap: boolean,
  logger: Logger,
  onTrustChange: () => void,
  inClusterDir: string = serviceAccountDir,
): Promise<Delegation> {
  // As k8s.io/apiserver's delegating options: a kubeconfig flag, else the in-cluster config in a pod, else no delegation.
  const client = async (kubeconfig: string | undefined, what: string): Promise<RestClient | undefined> => {
    if (kubeconfig !== undefined) return RestClient.fromKubeconfig(kubeconfig);
    if (config.inCluster === undefined) return undefined;
    const inCluster = RestClient.inCluster(config.inCluster, inClusterDir);
    logger.info({ server: inCluster.server }, `${what} delegated through the in-cluster config`);
    return inCluster;
  };
  const authenticationClient = await client(config.authenticationKubeconfig, 'authentication');
  const authorizationClient = await client(config.authorizationKubeconfig, 'authorization');
  // The main API server's RBAC decides in a cluster; a second policy beside it would be a surprise.
  if (authorizationClient && policy)
    throw new Error(
      '--authorization-policy-file is for a standalone Cairn: authorization is delegated to the main API server (--authorization-kubeconfig, or the in-cluster config)',
    );
  const cluster =
    authenticationClient &&
    new ClusterAuthentication({
      client: authenticationClient,
      requestHeader: requestHeaderFromConfigMap,
      onChange: (info) => {
        logger.info(
          { requestHeader: info.requestHeader !== undefined, allowedNames: info.requestHeader?.allowedNames },
          'cluster authentication configuration loaded',
        );
        onTrustChange();
      },
      onError: (error) => logger.warn({ err: error }, 'reading kube-system/extension-apiserver-authentication'),
    });
  if (cluster) await cluster.start();
  const authorizer = authorizationClient
    ? delegatingAuthorizer({
        client: authorizationClient,
        authorizedTtlMs: config.authorizedCacheTtlMs,
        unauthorizedTtlMs: config.unauthorizedCacheTtlMs,
        alwaysAllowPaths: config.alwaysAllowPaths,
      })
    : defaultAuthorizer(config.alwaysAllowPaths ?? defaultAlwaysAllowPaths, policy);
  return { authenticationClient, authorizationClient, cluster, authorizer };
}

/** Starts the server described by `config`. */
export async function startServer(config: ServerConfig, logger: Logger = pino({ level: config.logLevel }), seams: ServerSeams = {}): Promise<RunningServer> {
  await mkdir(config.dataDir, { recursive: true });
  const pki = await servingPki(config);
  const auditing = await startAuditing(config.audit, seams.audit, logger);
  // Draining (readyz fails, everything is still served) starts at SIGTERM; shutdown (long-running requests end) after the delay.
  const draining = new AbortController();
  const shutdown = new AbortController();
  let registry: Registry | undefined;
  let database: Database | undefined;
  let store: SqlObjectStore | undefined;
  let migrated = false;

  // Each authenticator verifies against its own CAs; the listener asks for certificates from all of them.
  const clientCaFilePem = await loadClientCa(config.authentication.clientCaFile);
  // Cairn's own client CA (the admin kubeconfig) is trusted beside --client-ca-file's, standalone and in a cluster alike.
  const userCaPems = [pki.clientCaPem, ...(clientCaFilePem !== undefined ? [clientCaFilePem] : [])];
  const requestHeaderCaPem = await loadRequestHeaderCa(config.requestHeader, userCaPems);
  const tokenFile = config.authentication.tokenAuthFile === undefined ? undefined : await TokenFileAuthenticator.fromFile(config.authentication.tokenAuthFile);
  for (const warning of tokenFile?.warnings ?? []) logger.warn(warning);
  const policy = await loadPolicy(config.authorizationPolicyFile);
  if (policy)
    logger.info({ file: config.authorizationPolicyFile, roles: policy.roles.length, bindings: policy.bindings.length }, 'authorization policy loaded');
  // Set once the listener exists: a change of the cluster's trust gives it the new CAs.
  let updateListenerCas = (): void => {};
  // In a cluster, kube-system/extension-apiserver-authentication supplies whatever the --requestheader-* flags leave out.
  const delegated: Delegation = await delegation(
    config.delegation,
    policy,
    config.requestHeader.clientCaFile === undefined,
    logger,
    () => updateListenerCas(),
    seams.serviceAccountDir,
  );
  const clientCaPems = () => [...userCaPems, ...(requestHeaderCaPem !== undefined ? [requestHeaderCaPem] : []), ...(delegated.cluster?.clientCaPems() ?? [])];
  // As kube-apiserver: the token file first, then the main API server's TokenReview.
  const tokenAuthenticators: TokenAuthenticator[] = [
    ...(tokenFile ? [tokenFile] : []),
    ...(delegated.authenticationClient
      ? [new TokenReviewAuthenticator({ client: delegated.authenticationClient, cacheTtlMs: config.delegation.tokenCacheTtlMs })]
      : []),
  ];
  // kube's delegating order: front proxy (its certificate says nothing of the user, its headers do), x509, bearer token.
  const authenticators: Authenticator[] = [
    ...(requestHeaderCaPem !== undefined ? [new RequestHeaderAuthenticator({ ...config.requestHeader, clientCaPems: [requestHeaderCaPem] })] : []),
    ...(delegated.cluster ? [delegated.cluster.authenticators[0]] : []),
    new X509Authenticator({ clientCaPems: userCaPems }),
    ...(delegated.cluster ? delegated.cluster.authenticators.slice(1) : []),
    ...(tokenAuthenticators.length > 0 ? [new BearerTokenAuthenticator(tokenAuthenticators)] : []),
  ];
  const localWebhooks = await webhookFile(config.admissionWebhookConfigFile);
  // In a cluster, as kube-apiserver's webhook plugins: the configurations stored in the main API server too.
  const webhookInformer =
    delegated.authenticationClient &&
    new WebhookConfigurationInformer({
      client: delegated.authenticationClient,
      local: localWebhooks,
      onError: (error) => logger.warn({ err: error }, 'reading admission webhook configurations'),
    });
  webhookInformer?.start();
  const fileWebhooks = webhookConfigurations(localWebhooks);
  const metrics = serverMetrics(servedGroups, () => (migrated ? database : undefined));
  const app = createApp({
    groups: servedGroups,
    metrics: metrics.api,
    registry: () => registry,
    authenticators,
    authorizer: delegated.authorizer,
    audit: auditing.backend,
    auditPolicy: auditing.policy,
    livezChecks: [{ name: 'ping', check: () => true }],
    readyzChecks: [
      { name: 'ping', check: () => true },
      { name: 'migrations', check: () => migrated },
      // The registry exists once the event log is read: until then data requests are answered 503.
      { name: 'storage', check: () => registry !== undefined },
      databaseCheck(() => database),
      { name: 'shutdown', check: () => !draining.signal.aborted },
    ],
    logger,
    shutdown: shutdown.signal,
    watchBookmarkIntervalMs: config.watchBookmarkIntervalMs,
    // In kube's order: NamespaceLifecycle (in a cluster, namespaces are the main API server's), the groups' own plugins, webhooks.
    admission: admissionChain([
      ...(delegated.authenticationClient ? [new NamespaceLifecycle(namespaceLookup(delegated.authenticationClient))] : []),
      ...servedGroups.flatMap((group) => (group.admission ? [group.admission(objectLookup(() => registry, group.name))] : [])),
      new WebhookAdmission({
        groups: servedGroups,
        configurations: () => webhookInformer?.current() ?? fileWebhooks,
        synced: webhookInformer?.synced,
        namespaceLabels: namespaceLabels(delegated.authenticationClient),
        onIgnoredFailure: (webhook, error) => logger.warn({ webhook, err: error }, 'admission webhook failed; failurePolicy Ignore lets the request pass'),
      }),
    ]),
    requestTimeoutMs: config.requestTimeoutMs,
    inFlightLimits: config.inFlightLimits,
  });
  const { insecureSuites, ...tlsOptions } = servingTlsOptions(config.tlsMinVersion, config.tlsCipherSuites);
  for (const suite of insecureSuites) logger.warn(`Use of insecure cipher '${suite}' detected.`);
  const listener: Listener = await listen(
    app.callback(),
    { certPem: pki.servingCertPem, keyPem: pki.servingKeyPem, clientCaPems: clientCaPems(), ...tlsOptions },
    config.bindAddress,
    config.port,
  );
  updateListenerCas = () => listener.setClientCas(clientCaPems());
  const certificateReloader =
    config.tlsCertFile !== undefined && config.tlsPrivateKeyFile !== undefined
      ? reloadServingCertificate({
          certFile: config.tlsCertFile,
          keyFile: config.tlsPrivateKeyFile,
          certPem: pki.servingCertPem,
          keyPem: pki.servingKeyPem,
          onChange: (certPem, keyPem) => listener.setServingCertificate(certPem, keyPem),
          logger,
        })
      : undefined;
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
  // kube-controller-manager's collector handles Cairn's kinds when a main API server is there.
  const collectGarbage = garbageCollectorEnabled(config.garbageCollector, Boolean(delegated.authenticationClient ?? delegated.authorizationClient));
  logger.info({ mode: config.garbageCollector, running: collectGarbage }, 'garbage collector');
  let garbageCollection: GarbageCollection | undefined;

  let compaction: NodeJS.Timeout | undefined;
  // The listener answers discovery and health at once; the API serves once storage is up.
  const ready = (async (): Promise<StorageDescription> => {
    let storage: StorageDescription;
    for (;;) {
      try {
        database ??= await openDatabase(config, logger);
        const applied = await migrateToLatest(database);
        if (applied.length) logger.info({ migrations: applied }, 'migrated');
        migrated = true;
        // Before the first read: without them, PGlite's planner would scan (table-statistics.ts).
        if (await refreshStatistics(database)) logger.info('planner statistics gathered');
        store = await SqlObjectStore.open(database, {
          onBackgroundError: (error) => logger.warn({ err: error }, 'event log'),
          // An embedded PGlite belongs to this process alone (its data directory is locked).
          exclusiveWriter: database.backend === 'pglite',
          objectCacheSize: config.objectCacheSize,
          watchCacheCapacity: config.watchCacheSize,
          // 0: no age limit, as kube's durations that turn a limit off.
          watchCacheMaxAgeMs: config.watchCacheMaxAgeMs || undefined,
        });
        const opened = new Registry(servedGroups, store);
        // As kube-apiserver's post-start hooks: the default objects exist before the API is served.
        await opened.bootstrap();
        registry = opened;
        storage = {
          backend: database.backend,
          location: config.databaseUrl ? redactedDatabaseUrl(config.databaseUrl) : pgliteDirectory(config.dataDir),
          fsync: await fsyncEnabled(database),
        };
        break;
      } catch (error) {
        if (shutdown.signal.aborted) throw error;
        logger.warn({ err: error }, 'storage not ready; retrying');
        await store?.close().catch(() => undefined);
        store = undefined;
        await new Promise((resolve) => setTimeout(resolve, databaseRetryMs));
      }
    }
    compaction = setInterval(() => {
      store?.compact(config.eventRetentionMs).then(
        ({ ran }) => metrics.compactionRun(ran ? 'success' : 'skipped'),
        (error: unknown) => {
          metrics.compactionRun('failure');
          logger.warn({ err: error }, 'compaction failed');
        },
      );
      // On PGlite, as autovacuum would (elsewhere a no-op); on compaction's cadence, as the log's size changes with it too.
      if (database) refreshStatistics(database).catch((error: unknown) => logger.warn({ err: error }, 'gathering planner statistics failed'));
    }, config.compactionIntervalMs);
    compaction.unref();
    if (!storage.fsync)
      logger.warn({ backend: storage.backend, fsync: 'off' }, 'the database does not flush commits to disk: a machine crash can lose acknowledged writes');
    logger.info('ready');
    if (controllerClient && !draining.signal.aborted) controller = startController(controllerClient, { logger: logger.child({ component: 'controller' }) });
    if (collectGarbage && !draining.signal.aborted)
      garbageCollection = startGarbageCollection({
        kubeconfigPath,
        databaseUrl: database.backend === 'postgres' ? config.databaseUrl : undefined,
        registry: metrics.api.registry,
        logger: logger.child({ component: 'garbage-collector' }),
      });
    return storage;
  })();
  ready.catch(() => undefined);

  return {
    port: listener.port,
    url,
    pki,
    kubeconfigPath,
    ready,
    async close() {
      draining.abort();
      certificateReloader?.stop();
      await controller?.stop();
      controllerClient?.close();
      await garbageCollection?.stop();
      // As kube's --shutdown-delay-duration: load balancers see readyz fail and stop sending, while watches and
      // requests already here go on; then the watches end, and their clients re-watch on another replica.
      if (config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
      shutdown.abort();
      clearInterval(compaction);
      await store?.close();
      await delegated.cluster?.stop();
      await webhookInformer?.stop();
      delegated.authenticationClient?.close();
      delegated.authorizationClient?.close();
      await listener.close(config.shutdownGraceMs);
      // After the last response, so the log ends with its ResponseComplete.
      await auditing.shutdown();
      await database?.close();
    },
  };
}
