/**
 * Reconciles one Pipeline per call: reads it from the informer's cache, computes the
 * status one tick later, writes it through `/status` when it differs, logs the step
 * through the `log` subresource (in the first step's stream: the server takes only
 * the Pipeline's step names), and asks for another tick until the simulated runners
 * reach the target.
 */
import { isNotFound } from '../machinery/kubeclient/api-error.js';
import type { CairnClient } from '../client/cairn-client.js';
import type { Pipeline } from '../client/kinds.js';
import { unwrap } from '../client/unwrap.js';
import { jsonEqual } from '../machinery/meta/object.js';
import type { Informer } from '../machinery/kubeclient/informer.js';
import { desiredStatus, targetReadyReplicas } from './pipeline-status.js';
import { retryOnConflict } from './retry-on-conflict.js';
import { fieldManager, statusPatch } from './status-patch.js';

const pipelinePath = '/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}';
const statusPath = '/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}/status';

/** The reconciler of Pipelines. */
export class PipelineController {
  readonly #client: CairnClient;
  readonly #pipelines: Informer<Pipeline>;
  readonly #requeue: (key: string) => void;

  /** `requeue` asks for another reconcile of a key at its next tick. */
  constructor(client: CairnClient, pipelines: Informer<Pipeline>, requeue: (key: string) => void) {
    this.#client = client;
    this.#pipelines = pipelines;
    this.#requeue = requeue;
  }

  /** Brings the Pipeline of `key` (`namespace/name`) one tick closer to its spec. */
  async reconcile(key: string): Promise<void> {
    const cached = this.#pipelines.get(key);
    if (cached === undefined) return;
    try {
      const written = await retryOnConflict(
        cached,
        () => this.#read(cached),
        (pipeline) => this.#writeStatus(pipeline),
      );
      if (written === undefined) return;
      if (written.status?.readyReplicas !== targetReadyReplicas(written)) this.#requeue(key);
      await this.#log(written);
    } catch (error) {
      // Deleted meanwhile: its DELETED event is on the way, nothing left to do.
      if (isNotFound(error, cached.metadata?.name)) return;
      throw error;
    }
  }

  /** Writes the desired status; returns the Pipeline written, or undefined when its status already was the desired one. */
  async #writeStatus(pipeline: Pipeline): Promise<Pipeline | undefined> {
    const status = desiredStatus(pipeline, new Date());
    if (jsonEqual(status, pipeline.status ?? {})) return undefined;
    return unwrap(this.#client.api.PATCH(statusPath, { params: { path: this.#path(pipeline), query: { fieldManager } }, ...statusPatch(pipeline, status) }));
  }

  /** Appends the step just written to the Pipeline's log; a Pipeline without steps has no log to write to. */
  async #log(pipeline: Pipeline): Promise<void> {
    const step = pipeline.spec?.steps?.[0]?.name;
    const ready = pipeline.status?.conditions?.find((c) => c.type === 'Ready');
    if (step === undefined || ready === undefined) return;
    const line = `[${fieldManager}] ${ready.reason}: ${ready.message}, phase ${pipeline.status?.phase}`;
    await this.#client.appendLog(this.#path(pipeline), { step, lines: [line] });
  }

  #read(pipeline: Pipeline): Promise<Pipeline> {
    return unwrap(this.#client.api.GET(pipelinePath, { params: { path: this.#path(pipeline) } }));
  }

  #path(pipeline: Pipeline): { namespace: string; name: string } {
    return { namespace: pipeline.metadata?.namespace ?? '', name: pipeline.metadata?.name ?? '' };
  }
}
