/**
 * The real `@kubernetes/client-node` 2.x against a real Cairn server, for every verb in
 * every served version (v1, v1beta1, v1alpha1): KubernetesObjectApi (create, read,
 * replace, each patch strategy, list, delete), CustomObjectsApi (namespaced Pipelines,
 * cluster-scoped RunnerClasses, status, scale, delete collection), Watch and
 * makeInformer. Answers must be in the version asked, with that version's field names.
 */
import {
  ApiException,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  Watch,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { recordInformerEvents } from '../support/informer-events.js';
import { sharedTestServer } from '../support/test-server.js';

const group = 'cairn.dev';
const versions = ['v1', 'v1beta1', 'v1alpha1'] as const;
type Version = (typeof versions)[number];

/** An object as client-node hands it back: untyped JSON beside the header fields. */
type Json = KubernetesObject & Record<string, any>;

/** What a Pipeline's fields are called in `version` (docs/api-reference.md shows each field's versions). */
function fieldsOf(version: Version) {
  const alpha = version === 'v1alpha1';
  return {
    replicas: alpha ? 'parallelism' : 'replicas',
    runnerClass: alpha ? 'runnerClass' : 'runnerClassName',
    /** A step running `sh -c script`. */
    step: (name: string, script: string) =>
      alpha ? { name, image: 'alpine:3.20', run: script } : { name, image: 'alpine:3.20', command: ['sh', '-c', script] },
    /** A status saying whether the Pipeline is ready. */
    readyStatus: (ready: boolean) =>
      alpha ? { phase: 'Running', ready } : { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

/** A Pipeline as a client of `version` writes it: `replicas` runners of class `standard`, one shell step. */
function pipelineIn(version: Version, namespace: string, name: string, replicas: number, labels?: Record<string, string>): Json {
  const fields = fieldsOf(version);
  return {
    apiVersion: `${group}/${version}`,
    kind: 'Pipeline',
    metadata: { name, namespace, ...(labels ? { labels } : {}) },
    spec: { [fields.runnerClass]: 'standard', [fields.replicas]: replicas, steps: [fields.step('fetch', 'echo hi')] },
  };
}

/** The ApiException `promise` rejects with; fails when it resolves or rejects otherwise. */
async function rejectionOf(promise: Promise<unknown>): Promise<ApiException<unknown>> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiException);
  return error as ApiException<unknown>;
}

/** The Status body of an ApiException, which client-node leaves as text or parses. */
const statusOf = (error: ApiException<unknown>): Json => (typeof error.body === 'string' ? JSON.parse(error.body) : error.body) as Json;

const nameOf = (object: KubernetesObject): string => object.metadata?.name ?? '';

describe('@kubernetes/client-node: every verb in every version', () => {
  const server = sharedTestServer({ backend: 'pglite' });
  let kc: KubeConfig;
  let objects: KubernetesObjectApi;
  let customObjects: CustomObjectsApi;

  beforeAll(() => {
    kc = new KubeConfig();
    kc.loadFromFile(server().kubeconfigPath);
    objects = KubernetesObjectApi.makeApiClient(kc);
    customObjects = kc.makeApiClient(CustomObjectsApi);
  });

  describe.each(versions)('cairn.dev/%s', (version) => {
    const apiVersion = `${group}/${version}`;
    const namespace = `client-node-${version}`;
    const fields = fieldsOf(version);
    const pipelines = { group, version, namespace, plural: 'pipelines' };
    const header = (name: string) => ({ apiVersion, kind: 'Pipeline', metadata: { name, namespace } });
    const create = async (name: string, replicas: number, labels?: Record<string, string>): Promise<Json> =>
      customObjects.createNamespacedCustomObject({ ...pipelines, body: pipelineIn(version, namespace, name, replicas, labels) });
    /** The Pipeline as stored: read in v1 straight from the server. */
    const stored = async (name: string): Promise<Json> => (await server().request('GET', `/apis/cairn.dev/v1/namespaces/${namespace}/pipelines/${name}`)).json;

    it('KubernetesObjectApi creates, reads, replaces, lists and deletes a Pipeline', async () => {
      const created = await objects.create<Json>(pipelineIn(version, namespace, 'objects', 2));
      expect(created).toMatchObject({ apiVersion, kind: 'Pipeline', metadata: { name: 'objects', namespace }, spec: { [fields.replicas]: 2 } });
      expect(created.spec).toEqual({ [fields.runnerClass]: 'standard', [fields.replicas]: 2, steps: [fields.step('fetch', 'echo hi')] });
      expect(created.metadata?.uid).toEqual(expect.any(String));

      const read = await objects.read<Json>(header('objects'));
      expect(read).toEqual(created);

      const replaced = await objects.replace<Json>({ ...read, spec: { ...read.spec, [fields.replicas]: 3 } });
      expect(replaced).toMatchObject({ apiVersion, spec: { [fields.replicas]: 3 } });
      expect(replaced.metadata?.resourceVersion).not.toBe(read.metadata?.resourceVersion);
      expect((await stored('objects')).spec.replicas).toBe(3);

      const listed = await objects.list<Json>(apiVersion, 'Pipeline', namespace, undefined, undefined, undefined, 'metadata.name=objects');
      expect(listed).toMatchObject({ apiVersion, kind: 'PipelineList' });
      // Lists come back as JSON, single objects with client-node's Date timestamps: compare what identifies them.
      const identity = (o: Json) => [o.apiVersion, o.kind, o.metadata?.uid, o.metadata?.resourceVersion, o.spec];
      expect(listed.items.map(identity)).toEqual([identity(replaced)]);

      await objects.delete(header('objects'));
      expect((await rejectionOf(objects.read(header('objects')))).code).toBe(404);
    });

    it('KubernetesObjectApi patches with merge patch, strategic merge patch and server-side apply', async () => {
      const name = 'patched';
      await create(name, 1);

      const merged = await objects.patch<Json>(
        { ...header(name), spec: { [fields.replicas]: 2 } },
        undefined,
        undefined,
        'client-node-merge',
        undefined,
        PatchStrategy.MergePatch,
      );
      expect(merged).toMatchObject({ apiVersion, spec: { [fields.replicas]: 2, steps: [fields.step('fetch', 'echo hi')] } });
      expect(merged.metadata?.managedFields).toContainEqual(expect.objectContaining({ manager: 'client-node-merge', operation: 'Update', apiVersion }));

      // Steps merge by name: the patch's step joins the existing one, where a merge patch would replace the list.
      // As in kube, an item the object did not have goes before those the patch does not name.
      const strategic = await objects.patch<Json>(
        { ...header(name), spec: { steps: [fields.step('parse', 'echo parse')] } },
        undefined,
        undefined,
        undefined,
        undefined,
        PatchStrategy.StrategicMergePatch,
      );
      expect(strategic.apiVersion).toBe(apiVersion);
      expect(strategic.spec.steps).toEqual([fields.step('parse', 'echo parse'), fields.step('fetch', 'echo hi')]);
      // Strategic merge is KubernetesObjectApi's default.
      const byDefault = await objects.patch<Json>({ ...header(name), spec: { steps: [fields.step('fetch', 'echo again')] } });
      expect(byDefault.spec.steps).toEqual([fields.step('parse', 'echo parse'), fields.step('fetch', 'echo again')]);

      const applied = await objects.patch<Json>(
        { ...header(name), spec: { [fields.replicas]: 4 } },
        undefined,
        undefined,
        'client-node-apply',
        true,
        PatchStrategy.ServerSideApply,
      );
      expect(applied).toMatchObject({ apiVersion, spec: { [fields.replicas]: 4 } });
      expect(applied.metadata?.managedFields).toContainEqual(expect.objectContaining({ manager: 'client-node-apply', operation: 'Apply', apiVersion }));

      // KubernetesObjectApi sends the object it is given, so a JSON Patch's array reaches the server as an
      // object (client-node 2.0.1): refused as kube-apiserver refuses it. CustomObjectsApi sends JSON Patch below.
      const operations = Object.assign([{ op: 'replace', path: `/spec/${fields.replicas}`, value: 9 }], header(name));
      const notAPatch = await rejectionOf(objects.patch(operations, undefined, undefined, undefined, undefined, PatchStrategy.JsonPatch));
      expect(notAPatch.code).toBe(400);
      expect(statusOf(notAPatch)).toMatchObject({
        reason: 'BadRequest',
        message: 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
      });

      const rival = { ...header(name), spec: { [fields.replicas]: 5 } };
      const conflict = await rejectionOf(objects.patch(rival, undefined, undefined, 'client-node-rival', false, PatchStrategy.ServerSideApply));
      expect(conflict.code).toBe(409);
      expect(statusOf(conflict)).toMatchObject({ kind: 'Status', reason: 'Conflict' });
      expect((await stored(name)).spec.replicas).toBe(4);

      const forced = await objects.patch<Json>(rival, undefined, undefined, 'client-node-rival', true, PatchStrategy.ServerSideApply);
      expect(forced.spec[fields.replicas]).toBe(5);
      const managers = (forced.metadata?.managedFields ?? []).map((entry) => entry.manager);
      expect(managers).toContain('client-node-rival');
      expect((await stored(name)).spec).toMatchObject({ replicas: 5, steps: [{ name: 'parse' }, { name: 'fetch' }] });
    });

    it('KubernetesObjectApi serves cluster-scoped RunnerClasses, read back in every version', async () => {
      const name = `objects-${version}`;
      const runnerClass = { apiVersion, kind: 'RunnerClass', metadata: { name } };
      const created = await objects.create<Json>({ ...runnerClass, spec: { image: 'alpine:3.20', maxReplicas: 2 } });
      expect(created).toMatchObject({ ...runnerClass, spec: { image: 'alpine:3.20', maxReplicas: 2 } });
      expect(created.metadata?.namespace).toBeUndefined();
      const replaced = await objects.replace<Json>({ ...(await objects.read<Json>(runnerClass)), spec: { image: 'alpine:3.21', maxReplicas: 3 } });
      expect(replaced.spec).toEqual({ image: 'alpine:3.21', maxReplicas: 3 });
      const applied = await objects.patch<Json>(
        { ...runnerClass, spec: { maxReplicas: 4 } },
        undefined,
        undefined,
        'client-node-apply',
        true,
        PatchStrategy.ServerSideApply,
      );
      expect(applied).toMatchObject({ apiVersion, spec: { image: 'alpine:3.21', maxReplicas: 4 } });
      for (const other of versions) {
        const read = await objects.read<Json>({ ...runnerClass, apiVersion: `${group}/${other}` });
        expect(read, other).toMatchObject({ apiVersion: `${group}/${other}`, kind: 'RunnerClass', spec: { image: 'alpine:3.21', maxReplicas: 4 } });
      }
      const listed = await objects.list<Json>(apiVersion, 'RunnerClass', undefined, undefined, undefined, undefined, `metadata.name=${name}`);
      expect(listed).toMatchObject({ apiVersion, kind: 'RunnerClassList' });
      expect(listed.items.map(nameOf)).toEqual([name]);
      await objects.delete(runnerClass);
      expect((await rejectionOf(objects.read(runnerClass))).code).toBe(404);
    });

    it('CustomObjectsApi creates, gets, replaces, patches and deletes a namespaced Pipeline', async () => {
      const name = 'custom';
      const created = await create(name, 1);
      expect(created).toMatchObject({ apiVersion, kind: 'Pipeline', spec: { [fields.runnerClass]: 'standard', [fields.replicas]: 1 } });
      const got: Json = await customObjects.getNamespacedCustomObject({ ...pipelines, name });
      expect(got).toEqual(created);

      const replaced: Json = await customObjects.replaceNamespacedCustomObject({
        ...pipelines,
        name,
        body: { ...got, spec: { ...got.spec, [fields.replicas]: 2 } },
      });
      expect(replaced).toMatchObject({ apiVersion, spec: { [fields.replicas]: 2 } });

      // JSON Patch is CustomObjectsApi's default content type; the others are chosen by header.
      const jsonPatched: Json = await customObjects.patchNamespacedCustomObject({
        ...pipelines,
        name,
        body: [{ op: 'replace', path: `/spec/${fields.replicas}`, value: 3 }],
      });
      expect(jsonPatched).toMatchObject({ apiVersion, spec: { [fields.replicas]: 3 } });
      const patches: Array<[PatchStrategy, unknown, number]> = [
        [PatchStrategy.MergePatch, { spec: { [fields.replicas]: 4 } }, 4],
        [PatchStrategy.StrategicMergePatch, { spec: { [fields.replicas]: 5 } }, 5],
        [PatchStrategy.ServerSideApply, { apiVersion, kind: 'Pipeline', metadata: { name }, spec: { [fields.replicas]: 6 } }, 6],
      ];
      for (const [strategy, body, replicas] of patches) {
        const patched: Json = await customObjects.patchNamespacedCustomObject(
          { ...pipelines, name, body, fieldManager: 'client-node-custom', force: strategy === PatchStrategy.ServerSideApply ? true : undefined },
          setHeaderOptions('Content-Type', strategy),
        );
        expect(patched, strategy).toMatchObject({ apiVersion, spec: { [fields.replicas]: replicas } });
      }
      expect((await stored(name)).spec.replicas).toBe(6);

      const deleted: Json = await customObjects.deleteNamespacedCustomObject({ ...pipelines, name });
      expect(deleted).toMatchObject({ apiVersion, kind: 'Pipeline', metadata: { name } });
      expect((await rejectionOf(customObjects.getNamespacedCustomObject({ ...pipelines, name }))).code).toBe(404);
    });

    it('CustomObjectsApi reads and patches status and scale', async () => {
      const name = 'subresources';
      await create(name, 2);

      const status = fields.readyStatus(true);
      const statusPatched: Json = await customObjects.patchNamespacedCustomObjectStatus(
        { ...pipelines, name, body: { status } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      expect(statusPatched).toMatchObject({ apiVersion, status });
      expect(await customObjects.getNamespacedCustomObjectStatus({ ...pipelines, name })).toMatchObject({ apiVersion, kind: 'Pipeline', status });
      expect((await stored(name)).status).toMatchObject({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });

      const scale: Json = await customObjects.getNamespacedCustomObjectScale({ ...pipelines, name });
      expect(scale).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name, namespace }, spec: { replicas: 2 } });
      // JSON Patch by default, merge patch by header.
      const jsonScaled: Json = await customObjects.patchNamespacedCustomObjectScale({
        ...pipelines,
        name,
        body: [{ op: 'replace', path: '/spec/replicas', value: 3 }],
      });
      expect(jsonScaled).toMatchObject({ kind: 'Scale', spec: { replicas: 3 } });
      const mergeScaled: Json = await customObjects.patchNamespacedCustomObjectScale(
        { ...pipelines, name, body: { spec: { replicas: 4 } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      expect(mergeScaled).toMatchObject({ kind: 'Scale', spec: { replicas: 4 } });
      expect((await customObjects.getNamespacedCustomObject({ ...pipelines, name })).spec[fields.replicas]).toBe(4);
    });

    it('CustomObjectsApi deletes a collection by label, answering in the version asked', async () => {
      await create('gone-a', 1, { gone: 'yes' });
      await create('gone-b', 1, { gone: 'yes' });
      await create('kept', 1, { gone: 'no' });
      const deleted: Json = await customObjects.deleteCollectionNamespacedCustomObject({ ...pipelines, labelSelector: 'gone=yes' });
      expect(deleted).toMatchObject({ apiVersion, kind: 'PipelineList' });
      expect(deleted.items.map((item: Json) => `${item.apiVersion} ${nameOf(item)}`).sort()).toEqual([`${apiVersion} gone-a`, `${apiVersion} gone-b`]);
      const left: Json = await customObjects.listNamespacedCustomObject({ ...pipelines, labelSelector: 'gone' });
      expect(left.items.map(nameOf)).toEqual(['kept']);
    });

    it('CustomObjectsApi serves cluster-scoped RunnerClasses, their status, and the class bound on Pipelines', async () => {
      const runnerClasses = { group, version, plural: 'runnerclasses' };
      const name = `client-node-${version}`;
      const created: Json = await customObjects.createClusterCustomObject({
        ...runnerClasses,
        body: { apiVersion, kind: 'RunnerClass', metadata: { name }, spec: { image: 'alpine:3.20', maxReplicas: 2 } },
      });
      expect(created).toMatchObject({ apiVersion, kind: 'RunnerClass', metadata: { name }, spec: { image: 'alpine:3.20', maxReplicas: 2 } });
      expect(created.metadata?.namespace).toBeUndefined();
      const got: Json = await customObjects.getClusterCustomObject({ ...runnerClasses, name });
      expect(got).toEqual(created);

      const replaced: Json = await customObjects.replaceClusterCustomObject({
        ...runnerClasses,
        name,
        body: { ...got, spec: { ...got.spec, maxReplicas: 3 } },
      });
      expect(replaced).toMatchObject({ apiVersion, spec: { maxReplicas: 3 } });
      const patched: Json = await customObjects.patchClusterCustomObject(
        { ...runnerClasses, name, body: { spec: { maxReplicas: 4 } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      expect(patched).toMatchObject({ apiVersion, spec: { image: 'alpine:3.20', maxReplicas: 4 } });

      const statusPatched: Json = await customObjects.patchClusterCustomObjectStatus({
        ...runnerClasses,
        name,
        body: [{ op: 'add', path: '/status', value: { pipelines: 1 } }],
      });
      expect(statusPatched).toMatchObject({ apiVersion, status: { pipelines: 1 } });
      expect(await customObjects.getClusterCustomObjectStatus({ ...runnerClasses, name })).toMatchObject({ apiVersion, status: { pipelines: 1 } });

      // Admission names the field as this version calls it.
      const body = {
        ...pipelineIn(version, namespace, 'bounded', 5),
        spec: { ...pipelineIn(version, namespace, 'bounded', 5).spec, [fields.runnerClass]: name },
      };
      const refused = await rejectionOf(customObjects.createNamespacedCustomObject({ ...pipelines, body }));
      expect(refused.code).toBe(403);
      expect(statusOf(refused).message).toContain(`spec.${fields.replicas}`);

      const deleted: Json = await customObjects.deleteClusterCustomObject({ ...runnerClasses, name });
      expect(deleted).toMatchObject({ apiVersion, kind: 'RunnerClass', metadata: { name } });
      expect((await rejectionOf(customObjects.getClusterCustomObject({ ...runnerClasses, name }))).code).toBe(404);
    });

    it('an object written in this version reads back in every version, its fields renamed', async () => {
      const name = 'converted';
      await create(name, 3);
      for (const other of versions) {
        const otherFields = fieldsOf(other);
        const read: Json = await customObjects.getNamespacedCustomObject({ group, version: other, namespace, plural: 'pipelines', name });
        expect(read.apiVersion, other).toBe(`${group}/${other}`);
        expect(read.spec, other).toEqual({ [otherFields.runnerClass]: 'standard', [otherFields.replicas]: 3, steps: [otherFields.step('fetch', 'echo hi')] });
        const found = await objects.list<Json>(`${group}/${other}`, 'Pipeline', namespace, undefined, undefined, undefined, `metadata.name=${name}`);
        expect(found.items, other).toEqual([read]);
      }
    });

    it('Watch streams ADDED, MODIFIED and DELETED in this version', async () => {
      await create('watched', 1, { suite: 'watch' });
      const events: Array<{ type: string; object: Json }> = [];
      const ended: unknown[] = [];
      const until = (count: number) => eventually(`${count} watch events`, 10_000, async () => events.length >= count || ended.length > 0);
      const controller = await new Watch(kc).watch(
        `/apis/${group}/${version}/namespaces/${namespace}/pipelines`,
        { resourceVersion: '0', labelSelector: 'suite=watch' },
        (type, object: Json) => events.push({ type, object }),
        (err) => ended.push(err),
      );
      try {
        await until(1);
        await customObjects.patchNamespacedCustomObject({
          ...pipelines,
          name: 'watched',
          body: [{ op: 'replace', path: `/spec/${fields.replicas}`, value: 2 }],
        });
        await until(2);
        await customObjects.deleteNamespacedCustomObject({ ...pipelines, name: 'watched' });
        await until(3);
        expect(ended.map(String)).toEqual([]);
        expect(events.map((e) => [e.type, e.object.apiVersion, nameOf(e.object), e.object.spec[fields.replicas]])).toEqual([
          ['ADDED', apiVersion, 'watched', 1],
          ['MODIFIED', apiVersion, 'watched', 2],
          ['DELETED', apiVersion, 'watched', 2],
        ]);
      } finally {
        controller.abort();
      }
    });

    it('makeInformer keeps a cache of this version in step', async () => {
      await create('informed-0', 1, { suite: 'informer' });
      const informer = makeInformer<Json>(
        kc,
        `/apis/${group}/${version}/namespaces/${namespace}/pipelines`,
        () => customObjects.listNamespacedCustomObject({ ...pipelines, labelSelector: 'suite=informer' }),
        'suite=informer',
      );
      const { seen, errors, until } = recordInformerEvents(informer);

      await informer.start();
      try {
        await until('add informed-0');
        await create('informed-1', 1, { suite: 'informer' });
        await until('add informed-1');
        await customObjects.patchNamespacedCustomObject({
          ...pipelines,
          name: 'informed-0',
          body: [{ op: 'replace', path: `/spec/${fields.replicas}`, value: 3 }],
        });
        await until('update informed-0');
        await customObjects.deleteNamespacedCustomObject({ ...pipelines, name: 'informed-1' });
        await until('delete informed-1');

        expect(errors).toEqual([]);
        expect(seen).toEqual(['add informed-0', 'add informed-1', 'update informed-0', 'delete informed-1']);
        expect(informer.list(namespace).map(nameOf)).toEqual(['informed-0']);
        expect(informer.get('informed-0', namespace)).toMatchObject({ apiVersion, spec: { [fields.replicas]: 3 } });
      } finally {
        await informer.stop();
      }
    });
  });
});
