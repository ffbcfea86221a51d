/**
 * Admission's flag, `--admission-webhook-config-file`, and the chain it applies to a
 * server in kube's order: NamespaceLifecycle (in a cluster, namespaces are the main API
 * server's), the groups' own plugins, then the webhooks of the file and, in a cluster,
 * the configurations stored in the main API server, as kube-apiserver's webhook plugins.
 */
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { servedGroups } from '../../apis/served-groups.js';
import { admissionChain, type Admission } from '../../registry/admission.js';
import { endpointTable } from '../../registry/endpoints.js';
import { NamespaceLifecycle } from '../../registry/namespace-lifecycle.js';
import { objectLookup, type Registry } from '../../registry/registry.js';
import { WebhookAdmission } from '../../registry/webhooks/webhook-admission.js';
import { parseWebhookConfigurations, webhookConfigurations } from '../../registry/webhooks/webhook-configuration.js';
import { WebhookConfigurationInformer } from '../../registry/webhooks/webhook-configuration-informer.js';
import type { KubeObject } from '../../machinery/meta/object.js';
import type { HealthCheck } from '../../http/health.js';
import type { Lifecycle } from '../lifecycle.js';
import { namespaceLabels, namespaceLookup, type MainApiServer } from '../main-api-server.js';
import { fileFlag, type ConcernOptions } from './flags.js';

/** What the admission flag says. */
export interface AdmissionOptions {
  /**
   * Mutating- and ValidatingWebhookConfigurations to call, read at startup (standalone;
   * in a cluster the main API server's are called too).
   */
  readonly admissionWebhookConfigFile?: string;
}

/** What applying the admission options needs of the server. */
interface AdmissionContext {
  readonly options: AdmissionOptions;
  readonly logger: Logger;
  readonly lifecycle: Lifecycle;
  readonly mainApiServer: MainApiServer;
  /** The registry once storage is ready, for the groups' plugins to read other objects. */
  readonly registry: () => Registry | undefined;
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

/** kube's `informer-sync`: fails until the webhook configurations were first listed, as writes wait for them until then. */
function informerSyncCheck(synced: Promise<void>): HealthCheck {
  let done = false;
  void synced.then(() => (done = true));
  return { name: 'informer-sync', check: () => (done ? undefined : 'the webhook configurations have not been listed yet') };
}

export const admissionOptions = {
  flags: {
    'admission-webhook-config-file': { type: 'string', usage: '[--admission-webhook-config-file FILE]' },
  },

  parse(values) {
    return { admissionWebhookConfigFile: fileFlag(values, 'admission-webhook-config-file') };
  },

  async applyTo({ options, logger, lifecycle, mainApiServer, registry }: AdmissionContext): Promise<Admission> {
    const localWebhooks = await webhookFile(options.admissionWebhookConfigFile);
    const client = mainApiServer.authenticationClient;
    const informer =
      client &&
      new WebhookConfigurationInformer({
        client,
        local: localWebhooks,
        onError: (error) => logger.warn({ err: error }, 'reading admission webhook configurations'),
      });
    if (informer) {
      informer.start();
      lifecycle.addReadyzChecks(informerSyncCheck(informer.synced));
      lifecycle.addPreShutdownHook('webhook-configuration-informer', () => informer.stop());
    }
    const fileWebhooks = webhookConfigurations(localWebhooks);
    return admissionChain([
      ...(client ? [new NamespaceLifecycle(namespaceLookup(client))] : []),
      ...servedGroups.flatMap((group) => (group.admission ? [group.admission(objectLookup(registry, group.name))] : [])),
      new WebhookAdmission({
        endpoints: endpointTable(servedGroups),
        configurations: () => informer?.current() ?? fileWebhooks,
        synced: informer?.synced,
        namespaceLabels: namespaceLabels(client),
        onIgnoredFailure: (webhook, error) => logger.warn({ webhook, err: error }, 'admission webhook failed; failurePolicy Ignore lets the request pass'),
      }),
    ]);
  },
} satisfies ConcernOptions<AdmissionOptions> & { applyTo(context: AdmissionContext): Promise<Admission> };
