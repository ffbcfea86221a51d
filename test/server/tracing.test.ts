/**
 * Tracing with `--tracing-config-file`, exported over OTLP gRPC to an in-process
 * receiver: a request carrying a `traceparent` continues that trace (Cairn's request span
 * is its child, the write batch and the database's round trips beneath it), an admission
 * webhook is called with the `traceparent` of Cairn's client span, sampling follows the
 * parent (rate 0 exports only what arrives sampled), and a bad file fails the start. Each
 * server is stopped before its spans are read: shutdown flushes the batch processor.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { newTraceparent, spanKind, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { pipeline, startTestServer } from '../support/test-server.js';
import { openWatch } from '../support/watch-client.js';
import { startWebhookServer, type WebhookServer } from '../support/webhook-server.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/default/pipelines';

describe('tracing (--tracing-config-file)', () => {
  let receiver: OtlpReceiver;
  let webhooks: WebhookServer;
  let dir: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    webhooks = await startWebhookServer({ '/allow': () => ({ allowed: true }) });
    dir = await mkdtemp(join(tmpdir(), 'cairn-tracing-'));
  });
  afterAll(async () => {
    await receiver?.close();
    await webhooks?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function configFile(name: string, config: Record<string, unknown>): Promise<string> {
    const file = join(dir, name);
    await writeFile(file, stringify({ apiVersion: 'apiserver.config.k8s.io/v1beta1', kind: 'TracingConfiguration', ...config }));
    return file;
  }

  const inTrace = (traceId: string): ReceivedSpan[] => receiver.spans.filter((span) => span.traceId === traceId);
  const childrenOf = (span: ReceivedSpan): ReceivedSpan[] => receiver.spans.filter((s) => s.traceId === span.traceId && s.parentSpanId === span.spanId);

  it('continues an incoming trace: the request span is its child, the write batch and database round trips beneath; a webhook gets the traceparent of its call', async () => {
    const webhookFile = join(dir, 'webhooks.yaml');
    await writeFile(
      webhookFile,
      stringify({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'traced' },
        webhooks: [
          {
            name: 'traced.cairn.test',
            clientConfig: { url: `${webhooks.url}/allow`, caBundle: webhooks.caBundle },
            rules: [{ operations: ['CREATE'], apiGroups: ['cairn.dev'], apiVersions: ['v1'], resources: ['pipelines'], scope: 'Namespaced' }],
            objectSelector: { matchLabels: { webhook: 'traced' } },
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
          },
        ],
      }),
    );
    const file = await configFile('always.yaml', { endpoint: receiver.endpoint, samplingRatePerMillion: 1_000_000 });
    const server = await startTestServer({ backend: 'pglite', args: ['--tracing-config-file', file, '--admission-webhook-config-file', webhookFile] });
    const created = newTraceparent();
    const webhooked = newTraceparent();
    const watched = newTraceparent();
    const whileWatched = newTraceparent();
    try {
      // A watch's span ends with its stream, as kube's: after a create made while it was open.
      const watch = await openWatch(server, `${pipelines}?watch=true`, { traceparent: watched.header });
      expect(watch.status).toBe(200);
      expect((await server.request('POST', pipelines, { body: pipeline('watched'), headers: { traceparent: whileWatched.header } })).status).toBe(201);
      await watch.waitFor(1);
      watch.close();
      const response = await server.request('POST', pipelines, { body: pipeline('traced'), headers: { traceparent: created.header } });
      expect(response.status).toBe(201);
      const through = await server.request('POST', pipelines, {
        body: pipeline('webhooked', {}, { webhook: 'traced' }),
        headers: { traceparent: webhooked.header },
      });
      expect(through.status).toBe(201);
      expect(webhooks.received.get('/allow')).toHaveLength(1);
    } finally {
      await server.destroy();
    }

    // The create: one server span, the child of the caller's span, named as kube names it.
    const [request, ...others] = inTrace(created.traceId).filter((span) => span.kind === spanKind.server);
    expect(others).toEqual([]);
    expect(request).toMatchObject({
      service: 'cairn',
      parentSpanId: created.spanId,
      name: 'POST /apis/cairn.dev/v1/namespaces/{:namespace}/pipelines',
      attributes: expect.objectContaining({ 'http.method': 'POST', 'http.status_code': 201, 'http.target': pipelines }),
    });
    expect(request.attributes['audit-id']).toEqual(expect.any(String));
    // Its write went in a batch beneath it, linked to it, and the batch's statement beneath that.
    const batch = childrenOf(request).find((span) => span.name === 'storage write batch');
    expect(batch).toBeDefined();
    expect(batch!.attributes['db.operation.batch.size']).toBe(1);
    expect(batch!.links).toContainEqual({ traceId: created.traceId, spanId: request.spanId });
    const statements = childrenOf(batch!);
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(statement).toMatchObject({
        kind: spanKind.client,
        attributes: expect.objectContaining({ 'db.system': 'postgresql', 'db.system.name': 'postgresql' }),
      });
      expect(String(statement.attributes['db.query.text'] ?? '').length).toBeLessThanOrEqual(257);
    }

    const watchSpan = inTrace(watched.traceId).find((span) => span.kind === spanKind.server);
    const createdWhileWatched = inTrace(whileWatched.traceId).find((span) => span.kind === spanKind.server);
    expect(watchSpan).toMatchObject({ name: 'GET /apis/cairn.dev/v1/namespaces/{:namespace}/pipelines', parentSpanId: watched.spanId });
    expect(watchSpan!.endTimeUnixNano).toBeGreaterThan(createdWhileWatched!.endTimeUnixNano);

    // The webhook: kube's span name, a client span beneath the request, whose id the webhook received as its parent.
    const webhookRequest = inTrace(webhooked.traceId).find((span) => span.kind === spanKind.server && span.parentSpanId === webhooked.spanId);
    expect(webhookRequest).toBeDefined();
    const spansBelow = (span: ReceivedSpan): ReceivedSpan[] => childrenOf(span).flatMap((child) => [child, ...spansBelow(child)]);
    const call = spansBelow(webhookRequest!).find((span) => span.name === 'Call validating webhook');
    expect(call).toMatchObject({
      kind: spanKind.client,
      attributes: expect.objectContaining({ webhook: 'traced.cairn.test', configuration: 'traced', operation: 'CREATE', 'http.status_code': 200 }),
    });
    const sent = webhooks.receivedHeaders.get('/allow')![0].traceparent;
    expect(sent).toBe(`00-${webhooked.traceId}-${call!.spanId}-01`);
  });

  it('samples by the parent at rate 0: an unsampled or new request exports nothing, a sampled one its spans', async () => {
    const file = await configFile('never.yaml', { endpoint: receiver.endpoint, samplingRatePerMillion: 0 });
    const server = await startTestServer({ backend: 'pglite', args: ['--tracing-config-file', file] });
    const unsampled = newTraceparent(false);
    const sampled = newTraceparent(true);
    const before = receiver.spans.length;
    try {
      expect((await server.request('POST', pipelines, { body: pipeline('unsampled'), headers: { traceparent: unsampled.header } })).status).toBe(201);
      expect((await server.request('POST', pipelines, { body: pipeline('untraced') })).status).toBe(201);
      expect((await server.request('GET', `${pipelines}/untraced`)).status).toBe(200);
      expect((await server.request('GET', `${pipelines}/unsampled`, { headers: { traceparent: sampled.header } })).status).toBe(200);
    } finally {
      await server.destroy();
    }
    const exported = receiver.spans.slice(before);
    expect(exported.length).toBeGreaterThan(0);
    // Only the sampled request's trace: nothing of the unsampled one, and no new root trace.
    expect(exported.filter((span) => span.traceId !== sampled.traceId)).toEqual([]);
    expect(exported.find((span) => span.kind === spanKind.server)).toMatchObject({
      parentSpanId: sampled.spanId,
      name: 'GET /apis/cairn.dev/v1/namespaces/{:namespace}/pipelines/{:name}',
    });
  });

  it('refuses to start with a file kube-apiserver would refuse, saying why', async () => {
    const rate = await configFile('rate.yaml', { endpoint: receiver.endpoint, samplingRatePerMillion: 1_000_001 });
    // Data directories of its own, removed with the rest: a start that fails leaves its own behind.
    const refused = (file: string) => startTestServer({ backend: 'pglite', dataDir: join(dir, 'refused'), args: ['--tracing-config-file', file] });
    await expect(refused(rate)).rejects.toThrow(
      /failed to validate tracing configuration: samplingRatePerMillion: Invalid value: 1000001: sampling rate per million must be less than or equal to one million/,
    );
    const unknownField = await configFile('field.yaml', { endpoint: receiver.endpoint, sampling: 5 });
    await expect(refused(unknownField)).rejects.toThrow(/unknown field "sampling"/);
    await expect(refused(join(dir, 'missing.yaml'))).rejects.toThrow(/failed to read tracing config: unable to read tracing configuration from/);
  });
});
