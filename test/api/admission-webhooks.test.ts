/**
 * Admission webhooks called by Cairn itself (kube-apiserver calls none for an aggregated
 * server's resources), configured standalone by --admission-webhook-config-file, against
 * real HTTPS webhook servers with a CA of their own: allow, deny, JSON Patch mutation in
 * kube's order and reinvocation, timeouts under failurePolicy Fail and Ignore, object and namespace
 * selectors, sideEffects under dryRun, rules and matchPolicy Equivalent, `/scale`, and
 * managedFields recorded before mutating admission, as kube's handlers record them.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { jsonPatch, startWebhookServer, type ReviewRequest, type WebhookServer } from '../support/webhook-server.js';
import { pipeline, startTestServer, type TestServer } from '../support/test-server.js';

const pipelinesIn = (namespace: string, version = 'v1') => `/apis/cairn.dev/${version}/namespaces/${namespace}/pipelines`;
const merge = { 'Content-Type': 'application/merge-patch+json' };

/** A Pipeline the webhooks selecting `webhook: <which>` are called for. */
const selected = (name: string, which: string, spec: Record<string, unknown> = {}) => {
  const body = pipeline(name, spec);
  return { ...body, metadata: { ...body.metadata, labels: { webhook: which } } };
};

const pipelineRules = (operations = ['CREATE', 'UPDATE']) => [
  { operations, apiGroups: ['cairn.dev'], apiVersions: ['v1'], resources: ['pipelines'], scope: 'Namespaced' },
];

describe('admission webhooks from --admission-webhook-config-file', () => {
  let stamps = 0;
  let webhooks: WebhookServer;
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    webhooks = await startWebhookServer({
      '/allow': () => ({ allowed: true, warnings: ['looked at by allow.cairn.test'] }),
      '/deny': () => ({ allowed: false, status: { code: 403, reason: 'Forbidden', message: 'no pipelines today' } }),
      '/deny-bare': () => ({ allowed: false }),
      // Labels the Pipeline and doubles its replicas, in v1 whatever version the request was in.
      '/mutate-first': (request) => ({
        allowed: true,
        warnings: ['mutated'],
        ...jsonPatch([
          { op: 'add', path: '/metadata/labels/mutated-by', value: 'first' },
          { op: 'replace', path: '/spec/replicas', value: request.object.spec.replicas * 2 },
        ]),
      }),
      // Runs after the first (its configuration's name sorts after): it sees the first one's label.
      '/mutate-second': (request) => ({
        allowed: true,
        ...jsonPatch([{ op: 'add', path: '/metadata/annotations', value: { 'seen-label': request.object.metadata.labels['mutated-by'] ?? 'none' } }]),
      }),
      // Called first (reinvocationPolicy IfNeeded): notes the replicas it saw, and is called again once the first one doubled them.
      '/mutate-reinvoked': (request) => {
        const seen = String(request.object.spec.replicas);
        const annotations = request.object.metadata.annotations;
        return {
          allowed: true,
          ...jsonPatch([
            annotations
              ? { op: 'add', path: '/metadata/annotations/replicas-seen', value: seen }
              : { op: 'add', path: '/metadata/annotations', value: { 'replicas-seen': seen } },
          ]),
        };
      },
      '/slow': () => 'never',
      '/scale-bound': (request) => (request.object.spec.replicas > 5 ? { allowed: false, status: { message: 'at most 5 by webhook' } } : { allowed: true }),
      '/never': () => ({ allowed: false }),
      // Sets a label to a new value at every call, so that any write whose manager were recorded after it would own it.
      '/stamp': () => ({ allowed: true, ...jsonPatch([{ op: 'add', path: '/metadata/labels/stamp', value: String(++stamps) }]) }),
      // Removes what the client set and a default would fill.
      '/unset-replicas': () => ({ allowed: true, ...jsonPatch([{ op: 'remove', path: '/spec/replicas' }]) }),
      // Leaves managedFields that are not valid: kube puts back the ones it recorded before admission.
      '/break-managed-fields': () => ({
        allowed: true,
        ...jsonPatch([{ op: 'replace', path: '/metadata/managedFields', value: [{ manager: 'webhook', operation: 'Delete', apiVersion: 'cairn.dev/v1' }] }]),
      }),
    });
    const hook = (name: string, path: string, extra: Record<string, unknown> = {}) => ({
      name,
      clientConfig: { url: `${webhooks.url}${path}`, caBundle: webhooks.caBundle },
      rules: pipelineRules(),
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      ...extra,
    });
    const byLabel = (which: string) => ({ objectSelector: { matchLabels: { webhook: which } } });
    const validating = {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: 'cairn-validating' },
          webhooks: [
            hook('allow.cairn.test', '/allow', byLabel('allow')),
            hook('deny.cairn.test', '/deny', byLabel('deny')),
            hook('deny-bare.cairn.test', '/deny-bare', byLabel('deny-bare')),
            hook('slow-fail.cairn.test', '/slow', { ...byLabel('slow-fail'), timeoutSeconds: 1 }),
            hook('slow-ignore.cairn.test', '/slow', { ...byLabel('slow-ignore'), timeoutSeconds: 1, failurePolicy: 'Ignore' }),
            hook('side-effects.cairn.test', '/allow', { ...byLabel('side-effects'), sideEffects: 'Some' }),
            hook('namespace.cairn.test', '/deny', {
              namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['guarded'] }] },
            }),
            hook('scale.cairn.test', '/scale-bound', {
              rules: [{ operations: ['UPDATE'], apiGroups: ['cairn.dev'], apiVersions: ['*'], resources: ['pipelines/scale'] }],
            }),
            hook('other-group.cairn.test', '/never', {
              rules: [{ operations: ['*'], apiGroups: ['example.com'], apiVersions: ['*'], resources: ['*'] }],
            }),
            hook('exact.cairn.test', '/never', { ...byLabel('exact'), matchPolicy: 'Exact' }),
            hook('undeletable.cairn.test', '/deny', { ...byLabel('undeletable'), rules: pipelineRules(['DELETE']) }),
          ],
        },
      ],
    };
    const mutating = (name: string, webhook: string, path: string, extra: Record<string, unknown> = {}) => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name },
      webhooks: [hook(webhook, path, { ...byLabel('mutate'), ...extra })],
    });
    dir = await mkdtemp(join(tmpdir(), 'cairn-webhooks-'));
    const file = join(dir, 'webhooks.yaml');
    // Out of name order in the file: kube calls configurations in name order.
    await writeFile(
      file,
      [
        mutating('b-mutating', 'second.cairn.test', '/mutate-second'),
        validating,
        mutating('a-mutating', 'first.cairn.test', '/mutate-first'),
        mutating('0-reinvoked', 'reinvoked.cairn.test', '/mutate-reinvoked', { reinvocationPolicy: 'IfNeeded' }),
        mutating('c-stamp', 'stamp.cairn.test', '/stamp', byLabel('stamp')),
        mutating('d-break', 'break.cairn.test', '/break-managed-fields', byLabel('break')),
        mutating('e-unset', 'unset.cairn.test', '/unset-replicas', byLabel('unset')),
      ]
        .map((doc) => stringify(doc))
        .join('---\n'),
    );
    server = await startTestServer({ backend: 'pglite', args: ['--admission-webhook-config-file', file] });
  });
  afterAll(async () => {
    await server?.destroy();
    await webhooks?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const lastReview = (path: string): ReviewRequest => webhooks.received.get(path)!.at(-1)!;

  it('sends an AdmissionReview of the write and admits what the webhook allows, passing on its warnings', async () => {
    const created = await server.request('POST', pipelinesIn('hooks'), { body: selected('allowed', 'allow') });
    expect(created.status).toBe(201);
    expect(created.headers.warning).toBe('299 - "looked at by allow.cairn.test"');
    const review = lastReview('/allow');
    expect(review).toMatchObject({
      kind: { group: 'cairn.dev', version: 'v1', kind: 'Pipeline' },
      resource: { group: 'cairn.dev', version: 'v1', resource: 'pipelines' },
      requestKind: { group: 'cairn.dev', version: 'v1', kind: 'Pipeline' },
      requestResource: { group: 'cairn.dev', version: 'v1', resource: 'pipelines' },
      name: 'allowed',
      namespace: 'hooks',
      operation: 'CREATE',
      userInfo: { username: 'cairn-admin', groups: expect.arrayContaining(['system:masters']) },
      object: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'allowed', namespace: 'hooks' } },
      oldObject: null,
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
    });
    expect(review.uid).toMatch(/^[0-9a-f-]{36}$/);
    const updated = await server.request('PATCH', `${pipelinesIn('hooks')}/allowed`, { body: { spec: { replicas: 3 } }, headers: merge });
    expect(updated.status).toBe(200);
    expect(lastReview('/allow')).toMatchObject({ operation: 'UPDATE', object: { spec: { replicas: 3 } }, oldObject: { spec: { replicas: 1 } } });
  });

  it('defaults what a mutating webhook’s patch left unset, as kube defaults a custom resource after a patching webhook', async () => {
    const alpha = {
      apiVersion: 'cairn.dev/v1alpha1',
      kind: 'Pipeline',
      metadata: { name: 'unset-v1alpha1', labels: { webhook: 'unset' } },
      spec: { runnerClass: 'standard', parallelism: 3, steps: [{ name: 'a', run: 'true' }] },
    };
    // In the webhook's version (v1, also for a v1alpha1 request under matchPolicy Equivalent).
    for (const [version, body] of [
      ['v1', selected('unset-v1', 'unset', { replicas: 3 })],
      ['v1alpha1', alpha],
    ] as const) {
      const created = await server.request('POST', pipelinesIn('hooks', version), { body });
      expect(created.status, created.text).toBe(201);
      expect(lastReview('/unset-replicas').object.spec.replicas).toBe(3);
      const stored = await server.request('GET', `${pipelinesIn('hooks')}/unset-${version}`);
      expect(stored.json.spec.replicas, version).toBe(1);
    }
  });

  it('refuses what a webhook denies with its Status, as kube words it, and stores nothing', async () => {
    const denied = await server.request('POST', pipelinesIn('hooks'), { body: selected('denied', 'deny') });
    expect(denied.status).toBe(403);
    expect(denied.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'admission webhook "deny.cairn.test" denied the request: no pipelines today',
      reason: 'Forbidden',
      code: 403,
    });
    expect((await server.request('GET', `${pipelinesIn('hooks')}/denied`)).status).toBe(404);
    const bare = await server.request('POST', pipelinesIn('hooks'), { body: selected('bare', 'deny-bare') });
    expect(bare.json).toMatchObject({ code: 400, message: 'admission webhook "deny-bare.cairn.test" denied the request without explanation' });
  });

  it('applies mutating webhooks’ JSON Patches in configuration name order, converting for a v1alpha1 request', async () => {
    const created = await server.request('POST', pipelinesIn('hooks'), { body: selected('mutated', 'mutate', { replicas: 2 }) });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.warning).toBe('299 - "mutated"');
    expect(created.json.metadata.labels).toEqual({ webhook: 'mutate', 'mutated-by': 'first' });
    expect(created.json.spec.replicas).toBe(4);
    // The IfNeeded webhook ran first, saw 2, and ran once more after the others had changed the object; the Never ones ran once.
    expect(created.json.metadata.annotations).toEqual({ 'seen-label': 'first', 'replicas-seen': '4' });
    const calls = (path: string) =>
      webhooks.received
        .get(path)!
        .filter((request) => request.name === 'mutated')
        .map((request) => request.object.spec.replicas);
    expect(calls('/mutate-reinvoked')).toEqual([2, 4]);
    expect(calls('/mutate-first')).toEqual([2]);
    // The rules name v1 only; under matchPolicy Equivalent a v1alpha1 request is sent as v1, and the patch comes back as parallelism.
    const alpha = {
      apiVersion: 'cairn.dev/v1alpha1',
      kind: 'Pipeline',
      metadata: { name: 'mutated-alpha', labels: { webhook: 'mutate' } },
      spec: { runnerClass: 'standard', parallelism: 3, steps: [{ name: 'a', run: 'true' }] },
    };
    const alphaCreated = await server.request('POST', pipelinesIn('hooks', 'v1alpha1'), { body: alpha });
    expect(alphaCreated.status, alphaCreated.text).toBe(201);
    expect(alphaCreated.json.spec.parallelism).toBe(6);
    expect(lastReview('/mutate-first')).toMatchObject({
      kind: { version: 'v1' },
      requestKind: { version: 'v1alpha1' },
      object: { apiVersion: 'cairn.dev/v1', spec: { runnerClassName: 'standard', replicas: 3 } },
    });
    // matchPolicy Exact does not call a webhook whose rules name another version.
    await server.request('POST', pipelinesIn('hooks', 'v1alpha1'), { body: { ...alpha, metadata: { name: 'exact', labels: { webhook: 'exact' } } } });
    expect(webhooks.received.get('/never')).toBeUndefined();
  });

  describe('managedFields, recorded before mutating admission as kube records them', () => {
    type Entry = { manager: string; operation: string; fieldsV1: Record<string, any> };
    const entries = (object: { metadata: { managedFields?: Entry[] } }) => object.metadata.managedFields ?? [];
    /** The managers owning label `key`. */
    const labelOwners = (object: { metadata: { managedFields?: Entry[] } }, key: string) =>
      entries(object)
        .filter((e) => e.fieldsV1['f:metadata']?.['f:labels']?.[`f:${key}`])
        .map((e) => e.manager);
    const path = `${pipelinesIn('owners')}/owned`;

    it('never gives a manager the fields a mutating webhook set, whatever the verb', async () => {
      const created = await server.request('POST', `${pipelinesIn('owners')}?fieldManager=poster`, { body: selected('owned', 'stamp') });
      expect(created.status, created.text).toBe(201);
      expect(created.json.metadata.labels.stamp).toBeDefined();
      expect(labelOwners(created.json, 'webhook')).toEqual(['poster']);
      expect(labelOwners(created.json, 'stamp')).toEqual([]);
      // The webhook is sent the object the field manager recorded.
      expect(lastReview('/stamp').object.metadata.managedFields).toMatchObject([{ manager: 'poster', operation: 'Update' }]);

      const body = { ...created.json, spec: { ...created.json.spec, replicas: 2 } };
      const put = await server.request('PUT', `${path}?fieldManager=putter`, { body });
      expect(put.status, put.text).toBe(200);
      expect(put.json.metadata.labels.stamp).not.toBe(created.json.metadata.labels.stamp);
      expect(entries(put.json).find((e) => e.manager === 'putter')?.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });

      const patches = [
        ['merger', merge, { spec: { replicas: 3 } }],
        ['json-patcher', { 'Content-Type': 'application/json-patch+json' }, [{ op: 'replace', path: '/spec/replicas', value: 4 }]],
        ['strategic-merger', { 'Content-Type': 'application/strategic-merge-patch+json' }, { spec: { replicas: 5 } }],
      ] as const;
      for (const [manager, headers, patch] of patches) {
        const patched = await server.request('PATCH', `${path}?fieldManager=${manager}`, { body: patch, headers });
        expect(patched.status, patched.text).toBe(200);
        expect(entries(patched.json).find((e) => e.manager === manager)?.fieldsV1, manager).toEqual({ 'f:spec': { 'f:replicas': {} } });
        expect(labelOwners(patched.json, 'stamp'), manager).toEqual([]);
      }

      const applied = await server.request('PATCH', `${path}?fieldManager=applier`, {
        body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'owned' }, spec: { paused: true } },
        headers: { 'Content-Type': 'application/apply-patch+yaml' },
      });
      expect(applied.status, applied.text).toBe(200);
      expect(entries(applied.json).find((e) => e.manager === 'applier')).toMatchObject({ operation: 'Apply', fieldsV1: { 'f:spec': { 'f:paused': {} } } });
      expect(labelOwners(applied.json, 'stamp')).toEqual([]);
      // Every write was admitted, and the label moved each time.
      expect(applied.json.metadata.labels.stamp).toBe(String(stamps));
    });

    it('puts back the managedFields a webhook left invalid, with kube’s warning', async () => {
      const created = await server.request('POST', `${pipelinesIn('owners')}?fieldManager=poster`, { body: selected('broken', 'break') });
      expect(created.status, created.text).toBe(201);
      expect(created.headers.warning).toBe(
        '299 - ".metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: operation must be `Apply` or `Update`"',
      );
      expect(entries(created.json).map((e) => [e.manager, e.operation])).toEqual([['poster', 'Update']]);
    });
  });

  it('answers 500 when a webhook times out under failurePolicy Fail, and lets the write pass under Ignore', async () => {
    const failed = await server.request('POST', pipelinesIn('hooks'), { body: selected('slow-fail', 'slow-fail') });
    expect(failed.status).toBe(500);
    expect(failed.json).toMatchObject({
      kind: 'Status',
      reason: 'InternalError',
      code: 500,
      message: `Internal error occurred: failed calling webhook "slow-fail.cairn.test": failed to call webhook: Post "${webhooks.url}/slow?timeout=1s": context deadline exceeded`,
    });
    expect((await server.request('GET', `${pipelinesIn('hooks')}/slow-fail`)).status).toBe(404);
    expect((await server.request('POST', pipelinesIn('hooks'), { body: selected('slow-ignore', 'slow-ignore') })).status).toBe(201);
  });

  it('calls a webhook only in the namespaces its namespaceSelector selects (by the kubernetes.io/metadata.name label standalone)', async () => {
    const guarded = await server.request('POST', pipelinesIn('guarded'), { body: pipeline('p') });
    expect(guarded.json.message).toBe('admission webhook "namespace.cairn.test" denied the request: no pipelines today');
    expect((await server.request('POST', pipelinesIn('free'), { body: pipeline('p') })).status).toBe(201);
  });

  it('refuses a dry run a webhook with side effects would see, with 400, and calls it otherwise', async () => {
    const dry = await server.request('POST', `${pipelinesIn('hooks')}?dryRun=All`, { body: selected('side', 'side-effects') });
    expect(dry.status).toBe(400);
    expect(dry.json.message).toBe('admission webhook "side-effects.cairn.test" does not support dry run');
    const dryAllowed = await server.request('POST', `${pipelinesIn('hooks')}?dryRun=All`, { body: selected('dry-allowed', 'allow') });
    expect(dryAllowed.status).toBe(201);
    expect(lastReview('/allow')).toMatchObject({ name: 'dry-allowed', dryRun: true, options: { dryRun: ['All'] } });
    expect((await server.request('POST', pipelinesIn('hooks'), { body: selected('side', 'side-effects') })).status).toBe(201);
  });

  it('sends a Scale for pipelines/scale, in every version of the request', async () => {
    await server.request('POST', pipelinesIn('scaled'), { body: pipeline('web') });
    const refused = await server.request('PATCH', `${pipelinesIn('scaled', 'v1alpha1')}/web/scale`, { body: { spec: { replicas: 6 } }, headers: merge });
    expect(refused.json).toMatchObject({ code: 400, message: 'admission webhook "scale.cairn.test" denied the request: at most 5 by webhook' });
    expect(lastReview('/scale-bound')).toMatchObject({
      kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      resource: { group: 'cairn.dev', version: 'v1alpha1', resource: 'pipelines' },
      subResource: 'scale',
      object: { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 6 } },
      oldObject: { kind: 'Scale', spec: { replicas: 1 } },
    });
    const scaled = await server.request('PATCH', `${pipelinesIn('scaled')}/web/scale`, { body: { spec: { replicas: 5 } }, headers: merge });
    expect(scaled.status).toBe(200);
  });

  it('validates a DELETE with the object deleted as oldObject', async () => {
    expect((await server.request('POST', pipelinesIn('hooks'), { body: selected('kept', 'undeletable') })).status).toBe(201);
    const refused = await server.request('DELETE', `${pipelinesIn('hooks')}/kept`);
    expect(refused.json).toMatchObject({ code: 403, message: 'admission webhook "undeletable.cairn.test" denied the request: no pipelines today' });
    expect(lastReview('/deny')).toMatchObject({
      operation: 'DELETE',
      name: 'kept',
      object: null,
      oldObject: { metadata: { name: 'kept' } },
      options: { kind: 'DeleteOptions' },
    });
    expect((await server.request('GET', `${pipelinesIn('hooks')}/kept`)).status).toBe(200);
    const collection = await server.request('DELETE', `${pipelinesIn('hooks')}?labelSelector=webhook%3Dundeletable`);
    expect(collection.status).toBe(403);
    expect((await server.request('GET', `${pipelinesIn('hooks')}/kept`)).status).toBe(200);
  });

  it('calls no webhook whose rules do not match the request', () => {
    expect(webhooks.received.get('/never')).toBeUndefined();
  });
});
