/**
 * One trace across the aggregation layer: kube-apiserver 1.34 and Cairn both read the same
 * `--tracing-config-file` and export to one in-process OTLP receiver; a `kubectl create` of
 * a Pipeline through kube-apiserver yields a trace in which Cairn's request span is the
 * child of a span kube-apiserver exported (its proxy's outgoing request), with Cairn's
 * SubjectAccessReview call, write batch and database round trips beneath it; a bearer
 * token sent to Cairn itself has its TokenReview call traced beneath that request.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { startAggregatedCairn, type AggregatedCairn } from '../support/aggregated-cairn.js';
import { eventually } from '../support/eventually.js';
import { startKubeControlPlane, type KubeControlPlane } from '../support/kube-control-plane.js';
import { kubectlAvailable } from '../support/kubectl.js';
import { newTraceparent, spanKind, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { pipeline } from '../support/test-server.js';

describe.runIf(kubectlAvailable)('a trace through kube-apiserver into Cairn (needs kubectl on PATH)', () => {
  let receiver: OtlpReceiver;
  let plane: KubeControlPlane;
  let cairn: AggregatedCairn;
  let dir: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    dir = await mkdtemp(join(tmpdir(), 'cairn-tracing-cluster-'));
    const config = join(dir, 'tracing.yaml');
    // One file for both servers: kube-apiserver's format is Cairn's.
    await writeFile(
      config,
      stringify({
        apiVersion: 'apiserver.config.k8s.io/v1beta1',
        kind: 'TracingConfiguration',
        endpoint: receiver.endpoint,
        samplingRatePerMillion: 1_000_000,
      }),
    );
    plane = await startKubeControlPlane(inject('goPrograms'), { apiserverArgs: [`--tracing-config-file=${config}`] });
    cairn = await startAggregatedCairn(plane, { delegation: { cacheTtl: '1s' }, args: [`--tracing-config-file=${config}`] });
  }, 240_000);

  afterAll(async () => {
    await cairn?.stop();
    await plane?.stop();
    await receiver?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it("makes Cairn's request span the child of kube-apiserver's proxy span, with Cairn's authorization, batch and database spans beneath", async () => {
    const manifest = join(dir, 'pipeline.json');
    await writeFile(manifest, JSON.stringify(pipeline('traced')));
    // As a user who is not system:masters, whom Cairn's delegated authorization asks kube-apiserver about.
    const bound = await plane.kubectl(['create', 'clusterrolebinding', 'alice-admin', '--clusterrole=cluster-admin', '--user=alice']);
    expect(bound.code, bound.stderr).toBe(0);
    const created = await plane.kubectl(['create', '-f', manifest, '-n', 'default', '--as=alice']);
    expect(created.code, created.stderr).toBe(0);

    const cairnRequest = (): ReceivedSpan | undefined =>
      receiver.spans.find(
        (span) => span.service === 'cairn' && span.kind === spanKind.server && span.name === 'POST /apis/cairn.dev/v1/namespaces/{:namespace}/pipelines',
      );
    const parentOf = (span: ReceivedSpan): ReceivedSpan | undefined => receiver.spans.find((s) => s.traceId === span.traceId && s.spanId === span.parentSpanId);
    // Each server's batch processor exports every few seconds.
    await eventually("Cairn's request span and kube-apiserver's span above it", 30_000, async () => {
      const request = cairnRequest();
      return request !== undefined && parentOf(request) !== undefined;
    });
    const request = cairnRequest()!;
    const proxy = parentOf(request)!;
    expect(proxy.service).toBe('apiserver');
    expect(proxy.kind).toBe(spanKind.client);
    // Above the proxy's span, kube-apiserver's own request span for the same create.
    const ancestors: ReceivedSpan[] = [];
    for (let span: ReceivedSpan | undefined = proxy; span; span = parentOf(span)) ancestors.push(span);
    expect(ancestors.map((span) => span.service)).not.toContain('cairn');
    const kubeRequest = ancestors.find((span) => span.kind === spanKind.server);
    expect(kubeRequest?.name).toBe('POST /apis/cairn.dev/v1/namespaces/{:namespace}/pipelines');
    // The same attribute names as kube-apiserver's, and its audit ID, which the aggregator forwards.
    expect(request.attributes).toMatchObject({ 'http.method': 'POST', 'http.status_code': 201, 'audit-id': kubeRequest!.attributes['audit-id'] });
    expect(kubeRequest!.attributes['http.status_code']).toBe(201);

    if (process.env.CAIRN_TEST_PRINT_TRACE) {
      await new Promise((resolve) => setTimeout(resolve, 8000));
      console.log(
        receiver.spans
          .filter((span) => span.traceId === request.traceId)
          .map((span) => `${span.service} ${span.spanId} <- ${span.parentSpanId} ${span.name} ${JSON.stringify(span.attributes)}`)
          .join('\n'),
      );
    }
    await eventually("the spans beneath Cairn's request", 30_000, async () => {
      const below = receiver.spans.filter((span) => span.parentSpanId === request.spanId).map((span) => span.name);
      return below.includes('storage write batch') && below.includes('POST /apis/authorization.k8s.io/v1/subjectaccessreviews');
    });
  });

  it('traces the TokenReview of a bearer token beneath the request that carried it', async () => {
    expect((await plane.kubectl(['-n', 'default', 'create', 'serviceaccount', 'robot'])).code).toBe(0);
    const token = (await plane.kubectl(['-n', 'default', 'create', 'token', 'robot'])).stdout.trim();
    const parent = newTraceparent();
    // Straight to Cairn, as a client in the cluster could; its certificate is not what this checks.
    const status = await new Promise<number>((resolve, reject) => {
      const req = https.request(
        `${cairn.server.url}/apis/cairn.dev/v1/namespaces/default/pipelines`,
        { headers: { Authorization: `Bearer ${token}`, traceparent: parent.header }, rejectUnauthorized: false, agent: false },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end();
    });
    // The robot may not list Pipelines: SubjectAccessReview says so after TokenReview named it.
    expect(status).toBe(403);
    let review: ReceivedSpan | undefined;
    await eventually('the TokenReview span beneath the request', 30_000, async () => {
      const request = receiver.spans.find((span) => span.traceId === parent.traceId && span.parentSpanId === parent.spanId);
      review =
        request && receiver.spans.find((span) => span.parentSpanId === request.spanId && span.name === 'POST /apis/authentication.k8s.io/v1/tokenreviews');
      return review !== undefined;
    });
    expect(review).toMatchObject({
      service: 'cairn',
      kind: spanKind.client,
      attributes: expect.objectContaining({ 'http.method': 'POST', 'http.status_code': 201 }),
    });
  });
});
