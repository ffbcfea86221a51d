/**
 * A server's Config, as k8s.io/apiserver's `server.Config`: what every concern's options
 * apply, in the order they need each other (storage's accessors before admission's
 * plugins, the main API server's clients before authentication, authorization, admission
 * and the controllers). The hooks each concern adds go into the one lifecycle here.
 */
import { mkdir } from 'node:fs/promises';
import type { Logger } from 'pino';
import { servedGroups } from '../apis/served-groups.js';
import type { AuditBackend } from '../audit/audit.js';
import type { Auditing } from '../audit/auditing.js';
import type { Authorizer } from '../auth/authorizer.js';
import { ApiMetrics } from '../http/filters/metrics.js';
import type { Admission } from '../registry/admission.js';
import { StorageMetrics } from '../storage/metrics.js';
import type { ServerConfig } from './config.js';
import { Lifecycle } from './lifecycle.js';
import { mainApiServer, type MainApiServer } from './main-api-server.js';
import { admissionOptions } from './options/admission.js';
import { auditOptions } from './options/audit.js';
import { authenticationOptions, type Authentication } from './options/authentication.js';
import { authorizationOptions } from './options/authorization.js';
import { controllerOptions } from './options/controllers.js';
import { adminKubeconfigPath, servingOptions, type SecureServing } from './options/serving.js';
import { storageOptions, type StorageConfig } from './options/storage.js';
import { tracingOptions } from './options/tracing.js';
import { clusterMetrics, isWorker } from './worker-messages.js';

/** What a server is given beside its configuration; tests plug in here. */
export interface ServerSeams {
  /** Where audit events go besides `--audit-log-path`, at the levels `--audit-policy-file` says. */
  readonly audit?: AuditBackend;
  /**
   * Where the in-cluster config's ServiceAccount token and CA are read from; the path
   * kubelet mounts them at unless a test gives a directory.
   */
  readonly serviceAccountDir?: string;
}

/** Everything a server is made of before it serves. */
export interface Config {
  readonly options: ServerConfig;
  readonly logger: Logger;
  readonly lifecycle: Lifecycle;
  /** The API's metrics, whose registry `/metrics` answers with: storage's and the garbage collector's are in it too. */
  readonly metrics: ApiMetrics;
  readonly storage: StorageConfig;
  readonly serving: SecureServing;
  readonly audit: Auditing;
  readonly mainApiServer: MainApiServer;
  readonly authorizer: Authorizer;
  readonly authentication: Authentication;
  readonly admission: Admission;
}

/** Applies every concern's options; throws, naming the flag or file, on what they refuse. */
export async function newConfig(options: ServerConfig, logger: Logger, seams: ServerSeams): Promise<Config> {
  await mkdir(options.dataDir, { recursive: true });
  const lifecycle = new Lifecycle();
  const base = { options, logger, lifecycle };
  // First: its destroy function, the last to run, flushes the spans of everything after it.
  await tracingOptions.applyTo(base);
  const metrics = new ApiMetrics(servedGroups);
  if (isWorker()) metrics.gather = clusterMetrics(metrics.registry);
  const storage = storageOptions.applyTo({ ...base, metrics: new StorageMetrics(metrics.registry) });
  const serving = await servingOptions.applyTo(base);
  const audit = await auditOptions.applyTo({ ...base, backend: seams.audit });
  const main = await mainApiServer(options.delegation, logger, seams.serviceAccountDir);
  // Closed at the end, after the pre-shutdown hooks have stopped what watches through them.
  lifecycle.addDestroyFunc('main-api-server-clients', () => main.close());
  // Before anything watches the main API server: a policy file beside delegated authorization is refused first.
  const authorizer = await authorizationOptions.applyTo({ ...base, mainApiServer: main });
  const authentication = await authenticationOptions.applyTo({ ...base, pki: serving.pki, mainApiServer: main });
  const admission = await admissionOptions.applyTo({ ...base, mainApiServer: main, registry: storage.registry });
  controllerOptions.applyTo({ ...base, mainApiServer: main, kubeconfigPath: adminKubeconfigPath(options.dataDir), metrics: metrics.registry });
  return { options, logger, lifecycle, metrics, storage, serving, audit, mainApiServer: main, authorizer, authentication, admission };
}
