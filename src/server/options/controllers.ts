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
import { startGarbageCollection } from '../garbage-collection.js';
import type { Lifecycle } from '../lifecycle.js';
import type { MainApiServer } from '../main-api-server.js';
import { FlagError, stringFlag, type ConcernOptions } from './flags.js';

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
  readonly options: ControllerOptions & { readonly databaseUrl?: string };
  readonly logger: Logger;
  readonly lifecycle: Lifecycle;
  readonly mainApiServer: MainApiServer;
  /** The admin kubeconfig, written once the server listens. */
  readonly kubeconfigPath: string;
  /** Where the collector's metrics are registered. */
  readonly metrics: Registry;
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
        const collection = startGarbageCollection({
          kubeconfigPath,
          // The PostgreSQL all replicas share; an embedded PGlite has one process only.
          databaseUrl: options.databaseUrl || undefined,
          registry: metrics,
          logger: logger.child({ component: 'garbage-collector' }),
        });
        return () => collection.stop();
      });
  },
} satisfies ConcernOptions<ControllerOptions> & { applyTo(context: ControllersContext): void };
