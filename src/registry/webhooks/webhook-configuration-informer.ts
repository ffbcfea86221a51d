/**
 * The main API server's Mutating- and ValidatingWebhookConfigurations, kept current as
 * kube's webhook plugins keep them through informers: each kind is listed, then watched,
 * and listed again whenever a watch ends (at the latest every `resyncMs`) or fails.
 * A configuration the server holds but Cairn cannot use is told to `onError` and left out.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '../../machinery/meta/object.js';
import { webhookConfigurations, type WebhookConfigurations } from './webhook-configuration.js';

/** What the informer needs of a client of the main API server (src/auth's KubeApiClient). */
export interface ListWatchClient {
  request(method: string, path: string, body?: unknown, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<{ status: number; body: unknown }>;
  watch(path: string, onEvent: (event: { type: string; object: unknown }) => void, signal: AbortSignal): Promise<void>;
}

/** Options of {@link WebhookConfigurationInformer}. */
export interface WebhookConfigurationInformerOptions {
  readonly client: ListWatchClient;
  /** Configurations always in force besides the server's (those of `--admission-webhook-config-file`). */
  readonly local?: readonly KubeObject[];
  /** Told why a list or watch failed, or why a configuration is left out. */
  readonly onError?: (error: Error) => void;
  /** The longest a watch runs before the kind is listed again; 60 s by default. */
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
  /** Per kind, the configurations by name; a kind is absent until its first list. */
  readonly #objects = new Map<string, Map<string, KubeObject>>();
  #current: WebhookConfigurations;
  #loops: Promise<void>[] = [];
  readonly #synced: Promise<void>;
  #markSynced: () => void = () => {};

  constructor(options: WebhookConfigurationInformerOptions) {
    this.#options = options;
    this.#current = webhookConfigurations(options.local ?? []);
    this.#synced = new Promise((resolve) => (this.#markSynced = resolve));
  }

  /** Starts listing and watching; {@link synced} resolves once both kinds were listed. */
  start(): void {
    this.#loops = kinds.map(({ kind, plural }) => this.#loop(kind, plural));
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
    await Promise.all(this.#loops);
  }

  /** Recomputes the webhooks in force, leaving out (and telling of) each configuration that is not usable. */
  #changed(): void {
    const usable = [...(this.#options.local ?? [])];
    for (const objects of this.#objects.values()) {
      for (const object of objects.values()) {
        try {
          webhookConfigurations([object]);
          usable.push(object);
        } catch (error) {
          this.#options.onError?.(new Error(`${String(object.kind)} ${object.metadata?.name}: ${(error as Error).message}`, { cause: error }));
        }
      }
    }
    this.#current = webhookConfigurations(usable);
    if (this.#objects.size === kinds.length) this.#markSynced();
  }

  async #list(kind: string, plural: string): Promise<string> {
    const answer = await this.#options.client.request('GET', `${group}/${plural}`, undefined, { timeoutMs: 10_000, signal: this.#stopped.signal });
    if (answer.status !== 200) throw new Error(`GET ${group}/${plural}: HTTP ${answer.status}`);
    const list = answer.body as { metadata?: { resourceVersion?: string }; items?: KubeObject[] };
    // List items carry no apiVersion and kind.
    this.#objects.set(
      kind,
      new Map((list.items ?? []).map((item) => [item.metadata!.name!, { ...item, apiVersion: 'admissionregistration.k8s.io/v1', kind }])),
    );
    this.#changed();
    return list.metadata?.resourceVersion ?? '';
  }

  async #loop(kind: string, plural: string): Promise<void> {
    const signal = this.#stopped.signal;
    const timeoutSeconds = String(Math.max(1, Math.round((this.#options.resyncMs ?? 60_000) / 1000)));
    while (!signal.aborted) {
      try {
        const resourceVersion = await this.#list(kind, plural);
        if (signal.aborted) break;
        const query = new URLSearchParams({ watch: '1', resourceVersion, timeoutSeconds });
        await this.#options.client.watch(`${group}/${plural}?${query.toString()}`, (event) => this.#onEvent(kind, event), signal);
      } catch (error) {
        if (signal.aborted) break;
        this.#options.onError?.(error as Error);
        await sleep(this.#options.retryMs ?? 1000, undefined, { signal }).catch(() => undefined);
      }
    }
  }

  #onEvent(kind: string, event: { type: string; object: unknown }): void {
    const object = event.object as KubeObject;
    const objects = this.#objects.get(kind)!;
    if (event.type === 'ADDED' || event.type === 'MODIFIED')
      objects.set(object.metadata!.name!, { ...object, apiVersion: 'admissionregistration.k8s.io/v1', kind });
    else if (event.type === 'DELETED') objects.delete(object.metadata!.name!);
    else if (event.type === 'ERROR') throw new Error(`watch of ${kind}s: ${JSON.stringify(event.object)}`);
    else return;
    this.#changed();
  }
}
