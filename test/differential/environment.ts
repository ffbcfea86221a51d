/**
 * What the differential test runs against: one real kube-apiserver serving both
 * Pipelines, Cairn's through the aggregation layer (group cairn.dev, an APIService) and
 * kube's own as a custom resource (the same Pipelines, group {@link crdGroup}, from
 * {@link customResourceDefinition}), and one mutating admission webhook that both call.
 *
 * One MutatingWebhookConfiguration stored in kube-apiserver reaches both: kube-apiserver
 * calls it for the custom resource, and Cairn, registered with delegated authentication,
 * reads the cluster's configurations as kube-apiserver's webhook plugin does and calls it
 * for its Pipelines (kube-apiserver calls no webhook for an aggregated resource). It adds
 * one label, only in namespaces labelled {@link webhookNamespaceLabel}, so that the
 * other cases' answers do not depend on it.
 */
import { pipelines } from '../../src/apis/cairn/pipelines.js';
import { startAggregatedCairn, type AggregatedCairn } from '../support/aggregated-cairn.js';
import { eventually } from '../support/eventually.js';
import type { GoPrograms } from '../support/go-programs.js';
import { startKubeControlPlane, type KubeControlPlane } from '../support/kube-control-plane.js';
import { jsonPatch, startWebhookServer, type ReviewRequest, type WebhookServer } from '../support/webhook-server.js';
import { controlPlaneClient, type Answer, type Sent } from './client.js';
import { committedOpenApi, customResourceDefinition } from './pipeline-crd.js';

/** The group of the custom resource, which must not be cairn.dev: that one is the APIService's. */
export const crdGroup = 'crd.cairn.test';

/** The namespace label that turns the mutating webhook on. */
export const webhookNamespaceLabel = { 'differential-webhook': 'on' } as const;

/** The label the webhook adds to every Pipeline it is sent. */
export const webhookLabel = { key: 'mutated-by', value: 'webhook' } as const;

const mutatePath = '/mutate';
const READY_MS = 60_000;

/** The running environment. */
export interface DifferentialEnvironment {
  readonly plane: KubeControlPlane;
  readonly cairn: AggregatedCairn;
  readonly webhook: WebhookServer;
  /** Sends one request to kube-apiserver as its admin. */
  send(request: Sent): Promise<Answer>;
  /** Creates a namespace, labelled for the webhook when `webhook`. */
  createNamespace(name: string, webhook: boolean): Promise<void>;
  /** Labels an existing namespace for the webhook, and waits until both servers call it there. */
  turnWebhookOn(namespace: string): Promise<void>;
  /** The servers' last log lines, for a failure message. */
  logTail(): Promise<string>;
  stop(): Promise<void>;
}

/** The webhook's answer: the label added, by JSON Patch, to whatever labels the object has. */
function mutate(request: ReviewRequest): Record<string, unknown> {
  const labels = request.object?.metadata?.labels as Record<string, string> | undefined;
  const operation =
    labels === undefined
      ? { op: 'add', path: '/metadata/labels', value: { [webhookLabel.key]: webhookLabel.value } }
      : { op: 'add', path: `/metadata/labels/${webhookLabel.key}`, value: webhookLabel.value };
  return { allowed: true, ...jsonPatch([operation]) };
}

/**
 * Waits until both servers call the webhook for Pipelines in `namespace`. Each learns of
 * the configuration (kube-apiserver of the CRD and of the namespace's labels too) through
 * informers, on its own time: a dry-run create shows when it has.
 */
async function waitForWebhook(send: DifferentialEnvironment['send'], namespace: string): Promise<void> {
  for (const group of [pipelines.group, crdGroup]) {
    const probe: Sent = {
      method: 'POST',
      path: `/apis/${group}/v1/namespaces/${namespace}/pipelines?dryRun=All`,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Pipeline', metadata: { name: 'probe' }, spec: { runnerClassName: 'standard' } }),
    };
    await eventually(`${group} Pipelines in ${namespace} mutated by the webhook`, READY_MS, async () => {
      const answer = await send(probe);
      return answer.status === 201 && answer.json?.metadata?.labels?.[webhookLabel.key] === webhookLabel.value;
    });
  }
}

/** POSTs `object` to `path` and throws unless it was created. */
async function created(send: DifferentialEnvironment['send'], path: string, object: unknown): Promise<void> {
  const answer = await send({ method: 'POST', path, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(object) });
  if (answer.status !== 201) throw new Error(`POST ${path}: ${answer.status} ${answer.body.toString('utf8')}`);
}

/**
 * Starts kube-apiserver and etcd, registers Cairn behind them, creates the CRD and the
 * webhook's configuration, and waits until both servers serve Pipelines and call the
 * webhook. On failure everything started is stopped.
 */
export async function startDifferentialEnvironment(binaries: GoPrograms): Promise<DifferentialEnvironment> {
  const plane = await startKubeControlPlane(binaries);
  const client = controlPlaneClient(plane);
  let cairn: AggregatedCairn | undefined;
  let webhook: WebhookServer | undefined;
  const stop = async (): Promise<void> => {
    client.close();
    await webhook?.close();
    await cairn?.stop();
    await plane.stop();
  };
  try {
    const { send } = client;
    const documents = Object.fromEntries(pipelines.versions.map((v) => [v.version, committedOpenApi(pipelines.group, v.version)]));
    const crd = customResourceDefinition(pipelines, crdGroup, documents);
    // Registering Cairn takes longest (its APIServices must be probed Available): the CRD is created meanwhile.
    [cairn] = await Promise.all([
      // No kube-controller-manager runs, so no garbage collector serves the CRD: Cairn's is off too.
      startAggregatedCairn(plane, { delegation: { cacheTtl: '1s' }, args: ['--garbage-collector=off'] }),
      created(send, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd),
    ]);
    // Cairn's admission wants a Pipeline's RunnerClass to exist (a CRD has no such rule): the cases name `standard`, which Cairn seeds, and this one.
    await created(send, `/apis/${pipelines.group}/v1/runnerclasses`, { apiVersion: `${pipelines.group}/v1`, kind: 'RunnerClass', metadata: { name: 'large' } });
    webhook = await startWebhookServer({ [mutatePath]: mutate });
    await created(send, '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'cairn-differential' },
      webhooks: [
        {
          name: 'mutate.differential.cairn.test',
          clientConfig: { url: `${webhook.url}${mutatePath}`, caBundle: webhook.caBundle },
          rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [pipelines.group, crdGroup], apiVersions: ['*'], resources: ['pipelines'] }],
          namespaceSelector: { matchLabels: webhookNamespaceLabel },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Fail',
        },
      ],
    });
    const createNamespace = async (name: string, labelled: boolean): Promise<void> =>
      created(send, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...(labelled ? { labels: webhookNamespaceLabel } : {}) } });
    await createNamespace('webhook-ready', true);
    await waitForWebhook(send, 'webhook-ready');
    const turnWebhookOn = async (namespace: string): Promise<void> => {
      const path = `/api/v1/namespaces/${namespace}`;
      const body = JSON.stringify({ metadata: { labels: webhookNamespaceLabel } });
      const answer = await send({ method: 'PATCH', path, headers: { 'Content-Type': 'application/merge-patch+json' }, body });
      if (answer.status !== 200) throw new Error(`PATCH ${path}: ${answer.status} ${answer.body.toString('utf8')}`);
      await waitForWebhook(send, namespace);
    };
    const running = { cairn, webhook };
    return {
      plane,
      ...running,
      send,
      createNamespace,
      turnWebhookOn,
      logTail: async () => `${await plane.logTail()}\n${running.cairn.logTail()}`,
      stop,
    };
  } catch (error) {
    const logs = `${await plane.logTail().catch(() => '')}\n${cairn?.logTail() ?? ''}`;
    await stop().catch(() => undefined);
    throw new Error(`${(error as Error).message}\n${logs}`, { cause: error });
  }
}
