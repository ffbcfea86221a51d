/**
 * The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins, which
 * kube-apiserver never runs for an aggregated server's resources: each webhook whose
 * rules and selectors match a write is sent an `admission.k8s.io/v1` AdmissionReview.
 * Mutating webhooks run one after another, each on the previous one's result, their
 * JSON Patches applied; validating webhooks run in parallel and any may refuse.
 *
 * Admission sees the hub object (the storage version; a Scale on `/scale`), mutating
 * admission the object a write computed and validating admission the object about to be
 * stored; a webhook is sent either in the version its rule matched; a DELETE is validated with the object
 * deleted as oldObject. A mutating webhook with reinvocationPolicy IfNeeded is called
 * once more when a later one changed what it returned. Not supported: CONNECT (Cairn
 * serves none) and `matchConditions`.
 */
import { randomUUID } from 'node:crypto';
import type { Admission, AdmissionAttributes } from '../../apis/admission.js';
import { servedVersion, storageVersionOf } from '../../apis/api-resource.js';
import { badRequest, forbidden, internal } from '../../machinery/errors.js';
import { isPlainObject, jsonEqual, type KubeObject } from '../../machinery/meta/object.js';
import { applyJsonPatch } from '../../machinery/patch/patch.js';
import { matchesLabels, type LabelSelector, type Labels } from '../../machinery/selectors/label-selector.js';
import { scaleOf } from '../../machinery/types/scale.js';
import { StatusError } from '../../machinery/status.js';
import { callWebhook, WebhookCallError, type AdmissionResponse } from './call-webhook.js';
import type { Webhook, WebhookConfigurations } from './webhook-configuration.js';
import type { Endpoint, EndpointTable } from '../endpoints.js';
import { matchedEndpoint } from './webhook-rules.js';

/** What the webhook plugins read. */
export interface WebhookAdmissionOptions {
  /** The served endpoints: a request's, and those its rules may match under Equivalent, with their kinds. */
  readonly endpoints: EndpointTable;
  /** The configurations in force now: read from a file, or kept up to date from the main API server. */
  readonly configurations: () => WebhookConfigurations;
  /** A namespace's labels, for `namespaceSelector`. */
  readonly namespaceLabels: (namespace: string) => Promise<Labels>;
  /** Told of a call that failed and that failurePolicy Ignore let pass, as kube logs it. */
  readonly onIgnoredFailure?: (webhook: string, error: Error) => void;
  /** Resolves once the configurations were read (the main API server's listed); writes wait for it. */
  readonly synced?: Promise<void>;
}

/** How long a write waits for the configurations to be read before it is refused, as kube's plugins wait. */
const readyTimeoutMs = 10_000;

type Phase = 'mutating' | 'validating';

const identity = (object: KubeObject): KubeObject => object;

/** kube's `webhookerrors.ToStatusErr`: a refusal, its code at least 400, its message saying who refused. */
function denied(webhook: string, status: AdmissionResponse['status']): StatusError {
  const deniedBy = `admission webhook "${webhook}" denied the request`;
  const why = status?.message || status?.reason;
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: why ? `${deniedBy}: ${why}` : `${deniedBy} without explanation`,
    ...(status?.reason ? { reason: status.reason } : {}),
    ...(isPlainObject(status?.details) ? { details: status.details } : {}),
    code: typeof status?.code === 'number' && status.code >= 400 ? status.code : 400,
  });
}

/** The two webhook plugins, as one Admission: `admit` calls the mutating webhooks, `validate` the validating ones. */
export class WebhookAdmission implements Admission {
  readonly #options: WebhookAdmissionOptions;
  #ready: boolean;

  constructor(options: WebhookAdmissionOptions) {
    this.#options = options;
    this.#ready = options.synced === undefined;
    void options.synced?.then(() => (this.#ready = true));
  }

  /** kube's `WaitForReady`: a write before the configurations are known waits, then is refused with 403. */
  async #waitForReady(a: AdmissionAttributes): Promise<void> {
    if (this.#ready) return;
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(resolve, readyTimeoutMs, 'timeout').unref());
    if ((await Promise.race([this.#options.synced, timeout])) === 'timeout') {
      throw forbidden({ group: a.group, resource: a.resource }, a.name, 'not yet ready to handle request');
    }
  }

  async admit(a: AdmissionAttributes): Promise<KubeObject> {
    await this.#waitForReady(a);
    const webhooks = this.#options.configurations().mutating;
    let object = a.object!;
    // What each webhook with reinvocationPolicy IfNeeded returned: it is called once more if a later one changed that.
    const returned = new Map<Webhook, KubeObject>();
    for (const webhook of webhooks) {
      const result = await this.#call(webhook, 'mutating', { ...a, object });
      if (result === undefined) continue;
      object = result;
      if (webhook.reinvocationPolicy === 'IfNeeded') returned.set(webhook, object);
    }
    for (const [webhook, result] of returned) {
      if (!jsonEqual(result, object)) object = (await this.#call(webhook, 'mutating', { ...a, object })) ?? object;
    }
    return object;
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    await this.#waitForReady(a);
    const results = await Promise.allSettled(this.#options.configurations().validating.map((webhook) => this.#call(webhook, 'validating', a)));
    const refused = results.find((result) => result.status === 'rejected');
    if (refused) throw refused.reason;
  }

  /** Calls `webhook` when it matches; returns the object (patched by a mutating webhook), undefined when it was not called. */
  async #call(webhook: Webhook, phase: Phase, a: AdmissionAttributes): Promise<KubeObject | undefined> {
    // Undefined only for a DELETE, which is validated, never mutated.
    const object = a.object!;
    const equivalents = this.#options.endpoints.equivalents(a.group, a.resource, a.subresource ?? '');
    const requested = equivalents.find((e) => e.version === a.version);
    if (!requested) return undefined;
    const target = {
      operation: a.operation,
      group: a.group,
      version: a.version,
      resource: a.resource,
      subresource: a.subresource,
      namespaced: a.namespace !== '',
    };
    const endpoint = matchedEndpoint(webhook, target, equivalents);
    if (endpoint === undefined || !(await this.#selected(webhook, a))) return undefined;
    if (a.dryRun && webhook.sideEffects !== 'None' && webhook.sideEffects !== 'NoneOnDryRun') {
      throw badRequest(`admission webhook "${webhook.name}" does not support dry run`);
    }
    const sent = this.#sent(endpoint, phase, a);
    const uid = randomUUID();
    let response: AdmissionResponse;
    try {
      response = await callWebhook(webhook, review(uid, a, requested, endpoint.version, sent), uid, {
        phase,
        resource: `${a.group}/${a.version}, Resource=${a.resource}`,
        subresource: a.subresource ?? '',
        operation: a.operation,
      });
    } catch (error) {
      if (!(error instanceof WebhookCallError)) throw error;
      const failure = new Error(`failed calling webhook "${webhook.name}": ${error.message}`);
      if (webhook.failurePolicy === 'Ignore') {
        this.#options.onIgnoredFailure?.(webhook.name, failure);
        return object;
      }
      throw internal(failure.message);
    }
    for (const warning of response.warnings ?? []) a.warn?.(warning);
    if (!response.allowed) throw denied(webhook.name, response.status);
    if (phase === 'validating' || response.patch === undefined) return object;
    if (response.patchType !== 'JSONPatch')
      throw internal(`mutating webhook "${webhook.name}" answered patchType ${String(response.patchType)}, not JSONPatch`);
    let patched: KubeObject;
    try {
      patched = applyJsonPatch(sent.object!, JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')));
    } catch (error) {
      throw internal(`applying the patch of mutating webhook "${webhook.name}": ${(error as Error).message}`);
    }
    return sent.back(patched);
  }

  async #selected(webhook: Webhook, a: AdmissionAttributes): Promise<boolean> {
    if (
      a.namespace !== '' &&
      webhook.namespaceSelector.length > 0 &&
      !matchesLabels(webhook.namespaceSelector, await this.#options.namespaceLabels(a.namespace))
    ) {
      return false;
    }
    return matchesObject(webhook.objectSelector, a.object) || matchesObject(webhook.objectSelector, a.oldObject);
  }

  /** The objects sent to a webhook in `endpoint`'s version (a Scale for a scale endpoint), and how a patched one comes back to what admission holds. */
  #sent(endpoint: Endpoint, phase: Phase, a: AdmissionAttributes): Sent {
    const { resource, version, kind } = endpoint;
    const scale = resource.subresources.scale;
    if (endpoint.subresource === 'scale' && scale) {
      // Mutating admission holds the Scale sent; validating admission the object it is mapped onto.
      const toScale = phase === 'mutating' ? identity : (object: KubeObject) => scaleOf(object, scale) as KubeObject;
      return { object: a.object && toScale(a.object), oldObject: a.oldObject && toScale(a.oldObject), kind, back: identity };
    }
    // Admission holds the hub (the storage version), whose conversions each served version has.
    const target = servedVersion(resource, version)!;
    const convert = target.fromStorage ?? identity;
    const toHub = target.toStorage ?? identity;
    const hub = storageVersionOf(resource);
    // As kube defaults a custom resource a webhook patched: in the webhook's version, then (converted) in the hub's.
    const back = (patched: KubeObject): KubeObject => {
      target.defaults?.(patched);
      const object = toHub(patched);
      if (target !== hub) hub.defaults?.(object);
      return object;
    };
    return { object: a.object && convert(a.object), oldObject: a.oldObject && convert(a.oldObject), kind, back };
  }
}

/** What a webhook is sent, and how its patched object returns. */
interface Sent {
  /** Undefined for a DELETE. */
  readonly object?: KubeObject;
  readonly oldObject?: KubeObject;
  readonly kind: { readonly group: string; readonly version: string; readonly kind: string };
  readonly back: (object: KubeObject) => KubeObject;
}

function matchesObject(selector: LabelSelector, object: KubeObject | undefined): boolean {
  return object !== undefined && matchesLabels(selector, object.metadata?.labels ?? {});
}

/** The admission.k8s.io/v1 AdmissionReview of a request to the `requested` endpoint, sent in `version`. */
function review(uid: string, a: AdmissionAttributes, requested: Endpoint, version: string, sent: Sent): unknown {
  const options = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions', CONNECT: 'ConnectOptions' }[a.operation];
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: sent.kind,
      resource: { group: a.group, version, resource: a.resource },
      ...(a.subresource ? { subResource: a.subresource, requestSubResource: a.subresource } : {}),
      requestKind: requested.kind,
      requestResource: { group: a.group, version: a.version, resource: a.resource },
      name: a.name,
      ...(a.namespace ? { namespace: a.namespace } : {}),
      operation: a.operation,
      userInfo: a.user
        ? { username: a.user.name, ...(a.user.uid ? { uid: a.user.uid } : {}), groups: a.user.groups, ...(a.user.extra ? { extra: a.user.extra } : {}) }
        : {},
      object: sent.object ?? null,
      oldObject: sent.oldObject ?? null,
      dryRun: a.dryRun,
      options: { apiVersion: 'meta.k8s.io/v1', kind: options, ...(a.dryRun ? { dryRun: ['All'] } : {}) },
    },
  };
}
