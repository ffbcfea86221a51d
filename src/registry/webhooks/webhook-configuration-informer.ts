/**
 * The main API server's Mutating- and ValidatingWebhookConfigurations, kept current as
 * kube's webhook plugins keep them through informers: an Informer per kind lists it,
 * then watches it, each watch stream at most `resyncMs` long and reopened from the last
 * resourceVersion seen (bookmarks included), and lists again when the server no longer
 * has that resourceVersion (410) or a watch fails. A configuration the server holds but
 * Cairn cannot use is told to `onError` and left out.
 */
import { Informer } from '../../machinery/kubeclient/informer.js';
import { restListWatch, type RestClient } from '../../machinery/kubeclient/rest-client.js';
import type { KubeObject } from '../../machinery/meta/object.js';
import { webhookConfigurations, type WebhookConfigurations } from './webhook-configuration.js';

/** Options of {@link WebhookConfigurationInformer}. */
export interface WebhookConfigurationInformerOptions {
  readonly client: Pick<RestClient, 'request' | 'watch'>;
  /** Configurations always in force besides the server's (those of `--admission-webhook-config-file`). */
  readonly local?: readonly KubeObject[];
  /** Told why a list or watch failed, or why a configuration is left out. */
  readonly onError?: (error: Error) => void;
  /** The longest each watch stream runs (its `timeoutSeconds`) before it is reopened; 60 s by default. */
  readonly resyncMs?: number;
  /** The wait after a failed list or watch; 1 s by default. */
  readonly retryMs?: number;
}

const group = '/apis/admissionregistration.k8s.io/v1';
const kinds = [
  { kind: 'MutatingWebhookConfiguration', plural: 'mutatingwebhookconfigurations' },
  { kind: 'ValidatingWebhookConfiguration', plural: 'validatingwebhookconfigurations' },
] as const;

/** The webhook configurations of the main API server (and the local ones), kept current until {@link stop}. */
export class WebhookConfigurationInformer {
  readonly #options: WebhookConfigurationInformerOptions;
  readonly #stopped = new AbortController();
  /** Per kind, the informer of its configurations (cached as the server has them, apiVersion and kind added where a list leaves them out). */
  readonly #informers: { readonly kind: string; readonly informer: Informer<KubeObject> }[];
  #current: WebhookConfigurations;
  #recomputing = false;
  #running: Promise<void>[] = [];
  readonly #synced: Promise<void>;

  constructor(options: WebhookConfigurationInformerOptions) {
    this.#options = options;
    this.#current = webhookConfigurations(options.local ?? []);
    const timeoutSeconds = String(Math.max(1, Math.round((options.resyncMs ?? 60_000) / 1000)));
    this.#informers = kinds.map(({ kind, plural }) => {
      const listWatch = restListWatch<KubeObject>(options.client, {
        listPath: `${group}/${plural}`,
        itemsOf: (body) => {
          const list = body as { metadata?: { resourceVersion?: string }; items?: KubeObject[] };
          return { items: list.items ?? [], resourceVersion: list.metadata?.resourceVersion ?? '' };
        },
        watchPath: (resourceVersion) =>
          `${group}/${plural}?${new URLSearchParams({ watch: '1', allowWatchBookmarks: 'true', resourceVersion, timeoutSeconds }).toString()}`,
        what: `${kind}s`,
      });
      const informer = new Informer(listWatch, { retryDelayMs: options.retryMs ?? 1000, onError: (error) => options.onError?.(error as Error) });
      informer.onChange(() => this.#changed());
      return { kind, informer };
    });
    // Each informer's first list is handed over before its `synced` resolves, and the recomputation it asked for comes first.
    this.#synced = Promise.all(this.#informers.map(({ informer }) => informer.synced)).then(() => undefined);
  }

  /** Starts listing and watching; {@link synced} resolves once both kinds were listed. */
  start(): void {
    this.#running = this.#informers.map(({ informer }) => informer.run(this.#stopped.signal));
  }

  /** Resolves once both kinds were listed. */
  get synced(): Promise<void> {
    return this.#synced;
  }

  /** The webhooks in force now, in kube's order. */
  current(): WebhookConfigurations {
    return this.#current;
  }

  /** Stops watching. */
  async stop(): Promise<void> {
    this.#stopped.abort();
    await Promise.all(this.#running);
  }

  /** Recomputes the webhooks in force once for every list or watch event, however many objects it changed. */
  #changed(): void {
    if (this.#recomputing) return;
    this.#recomputing = true;
    queueMicrotask(() => {
      this.#recomputing = false;
      this.#recompute();
    });
  }

  /** The webhooks in force, leaving out (and telling of) each configuration that is not usable. */
  #recompute(): void {
    const usable = [...(this.#options.local ?? [])];
    for (const { kind, informer } of this.#informers) {
      for (const cached of informer.list()) {
        // List items carry no apiVersion and kind.
        const object = { ...cached, apiVersion: 'admissionregistration.k8s.io/v1', kind };
        try {
          webhookConfigurations([object]);
          usable.push(object);
        } catch (error) {
          this.#options.onError?.(new Error(`${String(object.kind)} ${object.metadata?.name}: ${(error as Error).message}`, { cause: error }));
        }
      }
    }
    this.#current = webhookConfigurations(usable);
  }
}
