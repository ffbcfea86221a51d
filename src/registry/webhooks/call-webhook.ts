/**
 * One call of an admission webhook: the AdmissionReview POSTed over HTTPS to its
 * `clientConfig` (trusting its `caBundle`, else the system's roots), the response
 * AdmissionReview read back. A `service` is called at its cluster DNS name
 * (`https://<name>.<namespace>.svc:<port><path>`), as the name its certificate must carry.
 */
import https from 'node:https';
import { answered, failed, httpClientAttributes, inSpan, SpanKind, traceHeaders, tracing } from '../../machinery/tracing.js';
import type { Webhook } from './webhook-configuration.js';

/** `response` of an admission.k8s.io/v1 AdmissionReview. */
export interface AdmissionResponse {
  readonly uid: string;
  readonly allowed: boolean;
  readonly status?: { readonly code?: number; readonly message?: string; readonly reason?: string; readonly status?: string; readonly details?: unknown };
  /** Base64 of a JSON Patch. */
  readonly patch?: string;
  readonly patchType?: string;
  readonly warnings?: readonly string[];
}

/** Why a call failed: kube's `ErrCallingWebhook`, which failurePolicy decides about. */
export class WebhookCallError extends Error {}

/** The URL a webhook is called at, with kube's `timeout` query parameter. */
export function webhookUrl(webhook: Webhook): URL {
  const { url, service } = webhook.clientConfig;
  const base = url ?? `https://${service!.name}.${service!.namespace}.svc:${service!.port ?? 443}${service!.path ?? ''}`;
  const target = new URL(base);
  target.searchParams.set('timeout', `${webhook.timeoutSeconds}s`);
  return target;
}

/** What kube's span of one call says besides HTTP: its `Call mutating webhook` span's attributes. */
export interface WebhookCallAttributes {
  readonly phase: 'mutating' | 'validating';
  /** The resource as kube's GroupVersionResource prints (`cairn.dev/v1, Resource=pipelines`). */
  readonly resource: string;
  readonly subresource: string;
  readonly operation: string;
}

/**
 * POSTs `review` to `webhook` and returns its response; a WebhookCallError when it cannot be
 * had within the webhook's timeout. Traced as kube's `Call mutating webhook` and `Call
 * validating webhook` spans, a client span here whose `traceparent` the request carries.
 */
export function callWebhook(webhook: Webhook, review: unknown, uid: string, call: WebhookCallAttributes): Promise<AdmissionResponse> {
  const url = webhookUrl(webhook);
  const attributes = tracing()
    ? {
        ...httpClientAttributes('POST', url.origin, `${url.pathname}${url.search}`),
        configuration: webhook.configuration,
        webhook: webhook.name,
        resource: call.resource,
        subresource: call.subresource,
        operation: call.operation,
        UID: uid,
      }
    : undefined;
  return inSpan(`Call ${call.phase} webhook`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await post(webhook, url, review, uid, (status) => answered(span, status));
    } catch (error) {
      if (span) failed(span, error);
      throw error;
    }
  });
}

/** The request itself; `onStatus` hears the HTTP status. */
function post(webhook: Webhook, url: URL, review: unknown, uid: string, onStatus: (status: number) => void): Promise<AdmissionResponse> {
  const body = JSON.stringify(review);
  const failed = (why: string) => new WebhookCallError(`failed to call webhook: Post "${url.href}": ${why}`);
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: 'POST',
        headers: { ...traceHeaders(), 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': Buffer.byteLength(body) },
        ca: webhook.clientConfig.caBundle,
        agent: false,
        signal: AbortSignal.timeout(webhook.timeoutSeconds * 1000),
      },
      (res) => {
        onStatus(res.statusCode ?? 0);
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => reject(failed(error.message)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) return reject(new WebhookCallError(`received invalid webhook response: HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
          let response: AdmissionResponse | undefined;
          try {
            response = (JSON.parse(text) as { response?: AdmissionResponse }).response;
          } catch (error) {
            return reject(new WebhookCallError(`received invalid webhook response: ${(error as Error).message}`));
          }
          if (response === undefined || typeof response.allowed !== 'boolean')
            return reject(new WebhookCallError('received invalid webhook response: no response.allowed'));
          if (response.uid !== uid) return reject(new WebhookCallError(`expected response.uid="${uid}", got "${response.uid}"`));
          resolve(response);
        });
      },
    );
    req.on('error', (error) => reject(failed(error.name === 'AbortError' || error.name === 'TimeoutError' ? 'context deadline exceeded' : error.message)));
    req.end(body);
  });
}
