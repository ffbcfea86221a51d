/**
 * The controllers' flags (`--no-controller`, `--garbage-collector`) and the post-start
 * hooks they apply to a server, after storage's: the in-process sample controller and the
 * garbage collector, each a client of the API over HTTPS with the admin kubeconfig, never
 * of the registry, and each stopped first when shutdown begins.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createCairnClient } from '../../client/cairn-client.js';
import { loadKubeconfig } from '../../machinery/kubeclient/kubeconfig.js';
import { startController } from '../../controller/controller.js';
import { tryLease } from '../../storage/lease.js';
import { PostgresDatabase } from '../../storage/postgres-database.js';
import { garbageCollectorLockKey, trySessionLock, type SessionLock } from '../../storage/session-lock.js';
import { startGarbageCollection } from '../garbage-collection.js';
import type { Lifecycle } from '../lifecycle.js';
import type { MainApiServer } from '../main-api-server.js';
import { FlagError, stringFlag, type ConcernOptions } from './flags.js';
import type { DatabaseLocation } from './storage.js';

/** What the controllers' flags say. */
export interface ControllerOptions {
  /** Whether `start` also runs the sample controller in-process (off with `--no-controller`). */
  readonly controller: boolean;
  /**
   * `--garbage-collector`: whether this server finishes deletion cascades and collects
   * objects whose owners are gone; `auto` is on standalone and off when delegating to a
   * main API server, whose kube-controller-manager's collector handles Cairn's kinds.
   */
  readonly garbageCollector: 'auto' | 'on' | 'off';
}

/** Whether `--garbage-collector` runs the collector: `auto` does unless a main API server (and its kube-controller-manager) is there. */
export function garbageCollectorEnabled(mode: ControllerOptions['garbageCollector'], delegated: boolean): boolean {
  return mode === 'on' || (mode === 'auto' && !delegated);
}

/** What applying the controllers' options needs of the server. */
interface ControllersContext {
  readonly options: ControllerOptions & DatabaseLocation;
  readonly logger: Logger;
  readonly lifecycle: Lifecycle;
  readonly mainApiServer: MainApiServer;
  /** The admin kubeconfig, written once the server listens. */
  readonly kubeconfigPath: string;
  /** Where the collector's metrics are registered. */
  readonly metrics: Registry;
}

/**
 * How replicas agree on which runs the collector: a session advisory lock on a direct
 * connection (`--database-url`, or `--database-listen-url` behind a transaction pooler),
 * a lease row through a transaction pooler without one, none on an embedded PGlite
 * (one process).
 */
function collectorLock(location: DatabaseLocation): { take: () => Promise<SessionLock | undefined>; close: () => Promise<void> } | undefined {
  if (!location.databaseUrl) return undefined;
  const sessionUrl = location.databaseListenUrl ?? (location.databasePooler ? undefined : location.databaseUrl);
  if (sessionUrl) return { take: () => trySessionLock(sessionUrl, garbageCollectorLockKey), close: () => Promise.resolve() };
  const database = new PostgresDatabase({ connectionString: location.databaseUrl, pooler: 'transaction', maxConnections: 1 });
  return { take: () => tryLease(database, 'garbage-collector'), close: () => database.close() };
}

export const controllerOptions = {
  flags: {
    'no-controller': { type: 'boolean', usage: '[--no-controller]' },
    'garbage-collector': { type: 'string', usage: '[--garbage-collector auto|on|off]' },
  },

  parse(values) {
    const garbageCollector = stringFlag(values, 'garbage-collector') ?? 'auto';
    if (garbageCollector !== 'auto' && garbageCollector !== 'on' && garbageCollector !== 'off')
      throw new FlagError(`--garbage-collector must be auto, on or off, got "${garbageCollector}"`);
    return { controller: !values['no-controller'], garbageCollector };
  },

  applyTo({ options, logger, lifecycle, mainApiServer, kubeconfigPath, metrics }: ControllersContext): void {
    if (options.controller)
      lifecycle.addPostStartHook('start-controller', async () => {
        const client = createCairnClient(await loadKubeconfig(kubeconfigPath));
        const controller = startController(client, { logger: logger.child({ component: 'controller' }) });
        return async () => {
          await controller.stop();
          client.close();
        };
      });
    // kube-controller-manager's collector handles Cairn's kinds when a main API server is there.
    const delegated = Boolean(mainApiServer.authenticationClient ?? mainApiServer.authorizationClient);
    const collectGarbage = garbageCollectorEnabled(options.garbageCollector, delegated);
    logger.info({ mode: options.garbageCollector, running: collectGarbage }, 'garbage collector');
    if (collectGarbage)
      lifecycle.addPostStartHook('start-garbage-collector', async () => {
        const lock = collectorLock(options);
        const collection = startGarbageCollection({
          kubeconfigPath,
          takeLock: lock?.take,
          registry: metrics,
          logger: logger.child({ component: 'garbage-collector' }),
        });
        return async () => {
          await collection.stop();
          await lock?.close();
        };
      });
  },
} satisfies ConcernOptions<ControllerOptions> & { applyTo(context: ControllersContext): void };
