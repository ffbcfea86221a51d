/**
 * Starts a server as sample-apiserver does: the options (parsed by `config.ts`) apply
 * to a Config (`server-config.ts`), which is completed into the application's options,
 * made into a server, and run: it listens at once, then runs the post-start hooks
 * (storage, compaction, the controllers), as kube-apiserver does; a `--workers` worker
 * joining siblings that already serve runs its hooks first. Shutdown follows the
 * lifecycle's order.
 */
import { pino, type Logger } from 'pino';
import type Koa from 'koa';
import { servedGroups } from '../apis/served-groups.js';
import { createApp, type AppOptions } from '../http/app.js';
import type { HealthCheck } from '../http/health.js';
import type { ServerConfig } from './config.js';
import type { Pki } from './pki.js';
import { newConfig, type Config, type ServerSeams } from './server-config.js';
import type { StorageDescription } from './start-banner.js';
import { logCheck } from './log-check.js';
import { joinsServingWorkers } from './worker-messages.js';

/** kube's `ping`: passes whenever the server answers at all. */
const pingCheck: HealthCheck = { name: 'ping', check: () => undefined };

export { servedGroups, type ServerSeams };

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

/** A Config with what follows from it: the application's options. */
interface CompletedConfig extends Config {
  readonly app: AppOptions;
}

/** Derives the application's options: the health checks and the per-server settings of every request. */
function complete(config: Config): CompletedConfig {
  const { options, lifecycle } = config;
  // What a restart mends: kube's livez also has its post-start hooks and etcd, but a restart neither finishes a hook sooner nor brings a database back.
  const livezChecks = [pingCheck, logCheck(config.logger)];
  return {
    ...config,
    app: {
      groups: servedGroups,
      metrics: config.metrics,
      registry: config.storage.registry,
      authenticators: config.authentication.authenticators,
      authorizer: config.authorizer,
      audit: config.audit.backend,
      auditPolicy: config.audit.policy,
      livezChecks,
      readyzChecks: [...livezChecks, ...lifecycle.readyzChecks()],
      logger: config.logger,
      shutdown: lifecycle.shuttingDown,
      watchBookmarkIntervalMs: options.watchBookmarkIntervalMs,
      admission: config.admission,
      requestTimeoutMs: options.requestTimeoutMs,
      inFlightLimits: options.inFlightLimits,
    },
  };
}

/** A server made, not yet serving. */
interface Server {
  readonly config: CompletedConfig;
  readonly app: Koa;
}

/** New: the application made from the completed Config. */
function newServer(config: CompletedConfig): Server {
  return { config, app: createApp(config.app) };
}

/**
 * Listens, then runs the post-start hooks in the background: the listener answers discovery
 * and health at once, and data requests 503 until storage is ready, as kube-apiserver's
 * before its paths are installed. A worker joining siblings that serve runs the hooks first
 * and listens once they have run: the primary hands the shared port's connections to every
 * worker listening, and a sibling would have served what this one would answer 503.
 */
async function run({ config, app }: Server): Promise<RunningServer> {
  const { serving, authentication, lifecycle, storage, options } = config;
  const joining = joinsServingWorkers();
  // Its hooks' clients of the API (the sample controller) reach the siblings through the kubeconfig they wrote.
  if (joining) await lifecycle.runPostStartHooks();
  const { listener, url, kubeconfigPath } = await serving.serve(app.callback(), authentication.clientCaPems());
  // A change of the cluster's trust gives the listener the new CAs.
  authentication.onClientCasChange(() => listener.setClientCas(authentication.clientCaPems()));
  const ready = joining ? Promise.resolve(storage.description()) : lifecycle.runPostStartHooks().then(() => storage.description());
  ready.catch(() => undefined);
  return {
    port: listener.port,
    url,
    pki: serving.pki,
    kubeconfigPath,
    ready,
    close: () => lifecycle.shutdown(options.shutdownDelayMs),
  };
}

/** Starts the server described by `options`: Config, Complete, New, Run. */
export async function startServer(options: ServerConfig, logger: Logger = pino({ level: options.logLevel }), seams: ServerSeams = {}): Promise<RunningServer> {
  const config = await newConfig(options, logger, seams);
  return run(newServer(complete(config)));
}
