/**
 * Reconciles one RunnerClass per call: `status.pipelines` is the number of Pipelines,
 * in every namespace, whose `spec.runnerClassName` names it, counted in the Pipeline
 * informer's cache.
 */
import { isNotFound } from '../machinery/kubeclient/api-error.js';
import type { CairnClient } from '../client/cairn-client.js';
import type { Pipeline, RunnerClass } from '../client/kinds.js';
import { unwrap } from '../client/unwrap.js';
import type { Informer } from '../machinery/kubeclient/informer.js';
import { retryOnConflict } from './retry-on-conflict.js';
import { fieldManager, statusPatch } from './status-patch.js';

const runnerClassPath = '/apis/cairn.dev/v1/runnerclasses/{name}';
const statusPath = '/apis/cairn.dev/v1/runnerclasses/{name}/status';

/** The RunnerClass names a Pipeline change concerns: the class it left and the class it joined. */
export function runnerClassesOf(previous: Pipeline | undefined, current: Pipeline | undefined): string[] {
  const names = new Set([previous?.spec?.runnerClassName, current?.spec?.runnerClassName]);
  names.delete(undefined);
  return [...names] as string[];
}

/** The reconciler of RunnerClasses. */
export class RunnerClassController {
  readonly #client: CairnClient;
  readonly #runnerClasses: Informer<RunnerClass>;
  readonly #pipelines: Informer<Pipeline>;

  constructor(client: CairnClient, runnerClasses: Informer<RunnerClass>, pipelines: Informer<Pipeline>) {
    this.#client = client;
    this.#runnerClasses = runnerClasses;
    this.#pipelines = pipelines;
  }

  /** Brings the RunnerClass named `name` up to date with the Pipelines that use it. */
  async reconcile(name: string): Promise<void> {
    const cached = this.#runnerClasses.get(name);
    if (cached === undefined) return;
    const path = { name };
    try {
      await retryOnConflict(
        cached,
        () => unwrap(this.#client.api.GET(runnerClassPath, { params: { path } })),
        async (runnerClass) => {
          const pipelines = this.#pipelines.list().filter((p) => p.spec?.runnerClassName === name).length;
          if (runnerClass.status?.pipelines === pipelines) return;
          await unwrap(this.#client.api.PATCH(statusPath, { params: { path, query: { fieldManager } }, ...statusPatch(runnerClass, { pipelines }) }));
        },
      );
    } catch (error) {
      if (isNotFound(error, name)) return;
      throw error;
    }
  }
}
