/**
 * Deletion as kube-apiserver does it: finalizers and deletionTimestamp, propagation
 * policies, preconditions, deletecollection; and the ObjectMeta rules of writes
 * (immutable fields, ownerReferences, finalizer names, annotation size).
 */
import { describe, expect, it } from 'vitest';
import { backends, pipeline, sharedTestServer } from './support/test-server.js';
import { openWatch } from './support/watch-client.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/deletes/pipelines';
const merge = { 'Content-Type': 'application/merge-patch+json' };

describe.each(backends)('deletion on %s', (backend) => {
  const server = sharedTestServer({ backend });

  const create = async (name: string, metadata: Record<string, unknown> = {}, labels?: Record<string, string>) => {
    const manifest = pipeline(name, {}, labels);
    const response = await server().request('POST', pipelines, { body: { ...manifest, metadata: { ...manifest.metadata, ...metadata } } });
    expect(response.status, response.text).toBe(201);
    return response.json;
  };

  it('marks an object with finalizers, and removes it when the last finalizer goes', async () => {
    const created = await create('held', { finalizers: ['cairn.dev/hold', 'example.com/audit'] });
    const watch = await openWatch(server(), `${pipelines}?watch=true&resourceVersion=${created.metadata.resourceVersion}`);
    const deleted = await server().request('DELETE', `${pipelines}/held`, { body: { propagationPolicy: 'Background' } });
    expect(deleted.status).toBe(200);
    expect(deleted.json.metadata).toMatchObject({
      deletionTimestamp: expect.stringMatching(/Z$/),
      deletionGracePeriodSeconds: 0,
      finalizers: ['cairn.dev/hold', 'example.com/audit'],
    });
    const still = await server().request('GET', `${pipelines}/held`);
    expect(still.status).toBe(200);
    // Deleting again changes nothing.
    const again = await server().request('DELETE', `${pipelines}/held`);
    expect(again.json.metadata.resourceVersion).toBe(deleted.json.metadata.resourceVersion);
    expect(again.json.metadata.deletionTimestamp).toBe(deleted.json.metadata.deletionTimestamp);
    // No new finalizers while it is being deleted.
    const added = await server().request('PATCH', `${pipelines}/held`, {
      body: { metadata: { finalizers: ['cairn.dev/hold', 'example.com/audit', 'late.example.com/x'] } },
      headers: merge,
    });
    expect(added.status).toBe(422);
    expect(added.json.message).toContain('no new finalizers can be added if the object is being deleted');
    // Nor can an update take the deletion back.
    const undone = await server().request('PATCH', `${pipelines}/held`, { body: { metadata: { deletionTimestamp: null } }, headers: merge });
    expect(undone.json.metadata.deletionTimestamp).toBe(deleted.json.metadata.deletionTimestamp);
    const one = await server().request('PATCH', `${pipelines}/held`, { body: { metadata: { finalizers: ['example.com/audit'] } }, headers: merge });
    expect(one.status).toBe(200);
    expect(one.json.metadata.finalizers).toEqual(['example.com/audit']);
    const last = await server().request('PATCH', `${pipelines}/held`, { body: { metadata: { finalizers: null } }, headers: merge });
    expect(last.status).toBe(200);
    expect((await server().request('GET', `${pipelines}/held`)).status).toBe(404);
    const events = await watch.waitFor(3);
    expect(events.map((e) => e.type)).toEqual(['MODIFIED', 'MODIFIED', 'DELETED']);
    expect(BigInt(events[2].object.metadata.resourceVersion) > BigInt(one.json.metadata.resourceVersion)).toBe(true);
    watch.close();
  });

  it('adds the garbage collector finalizer of the propagation policy', async () => {
    await create('fg');
    const foreground = await server().request('DELETE', `${pipelines}/fg`, { body: { propagationPolicy: 'Foreground' } });
    expect(foreground.json.metadata).toMatchObject({ finalizers: ['foregroundDeletion'], deletionGracePeriodSeconds: 0 });
    await create('orphaned');
    const orphan = await server().request('DELETE', `${pipelines}/orphaned?propagationPolicy=Orphan`);
    expect(orphan.json.metadata.finalizers).toEqual(['orphan']);
    await create('legacy-orphan');
    const legacy = await server().request('DELETE', `${pipelines}/legacy-orphan`, { body: { orphanDependents: true } });
    expect(legacy.json.metadata.finalizers).toEqual(['orphan']);
    await create('background');
    const background = await server().request('DELETE', `${pipelines}/background`, { body: { propagationPolicy: 'Background' } });
    expect(background.status).toBe(200);
    expect((await server().request('GET', `${pipelines}/background`)).status).toBe(404);
  });

  it('refuses contradictory or unknown DeleteOptions with 422, and stale preconditions with 409', async () => {
    const target = await create('opts');
    const both = await server().request('DELETE', `${pipelines}/opts`, { body: { propagationPolicy: 'Orphan', orphanDependents: true } });
    expect(both.status).toBe(422);
    expect(both.json.details).toMatchObject({ kind: 'DeleteOptions', group: 'meta.k8s.io' });
    const unknown = await server().request('DELETE', `${pipelines}/opts`, { body: { propagationPolicy: 'Sometimes' } });
    expect(unknown.status).toBe(422);
    expect(unknown.json.message).toContain('Unsupported value: "Sometimes"');
    const staleUid = await server().request('DELETE', `${pipelines}/opts`, { body: { preconditions: { uid: 'other' } } });
    expect(staleUid.status).toBe(409);
    const staleRv = await server().request('DELETE', `${pipelines}/opts`, { body: { preconditions: { resourceVersion: '1' } } });
    expect(staleRv.status).toBe(409);
    const ok = await server().request('DELETE', `${pipelines}/opts`, {
      body: { preconditions: { uid: target.metadata.uid, resourceVersion: target.metadata.resourceVersion } },
    });
    expect(ok.status).toBe(200);
  });

  it('deletes a collection by label and field selector, dry-run first', async () => {
    const collection = '/apis/cairn.dev/v1/namespaces/collection/pipelines';
    for (const [name, team] of [
      ['c1', 'a'],
      ['c2', 'a'],
      ['c3', 'b'],
    ] as const) {
      expect((await server().request('POST', collection, { body: pipeline(name, {}, { team }) })).status).toBe(201);
    }
    const dry = await server().request('DELETE', `${collection}?labelSelector=team%3Da&dryRun=All`);
    expect(dry.status).toBe(200);
    expect(dry.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['c1', 'c2']);
    expect((await server().request('GET', collection)).json.items).toHaveLength(3);
    const deleted = await server().request('DELETE', `${collection}?labelSelector=team%3Da`, { body: { propagationPolicy: 'Background' } });
    expect(deleted.json).toMatchObject({ kind: 'PipelineList', apiVersion: 'cairn.dev/v1' });
    expect(deleted.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['c1', 'c2']);
    expect((await server().request('GET', collection)).json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['c3']);
    const byField = await server().request('DELETE', `${collection}?fieldSelector=metadata.name%3Dc3`);
    expect(byField.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['c3']);
    expect((await server().request('GET', collection)).json.items).toEqual([]);
    // Only within a namespace, as kube serves it.
    expect((await server().request('DELETE', '/apis/cairn.dev/v1/pipelines')).status).toBe(405);
  });

  it('keeps valid ownerReferences and refuses invalid ones', async () => {
    const owner = {
      apiVersion: 'cairn.dev/v1',
      kind: 'RunnerClass',
      name: 'std',
      uid: '6b1e4d0e-0000-4000-8000-000000000001',
      controller: true,
      blockOwnerDeletion: true,
    };
    const kept = await create('owned', { ownerReferences: [owner] });
    expect(kept.metadata.ownerReferences).toEqual([owner]);
    const missing = await server().request('POST', pipelines, {
      body: { ...pipeline('no-uid'), metadata: { name: 'no-uid', ownerReferences: [{ ...owner, uid: '' }] } },
    });
    expect(missing.status).toBe(422);
    expect(missing.json.details.causes).toContainEqual({
      field: 'metadata.ownerReferences.uid',
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "": uid must not be empty',
    });
    const twoControllers = await server().request('POST', pipelines, {
      body: { ...pipeline('two'), metadata: { name: 'two', ownerReferences: [owner, { ...owner, name: 'other', uid: 'u2' }] } },
    });
    expect(twoControllers.status).toBe(422);
    expect(twoControllers.json.message).toContain('Only one reference can have Controller set to true');
  });

  it('refuses changes to immutable metadata, bad finalizers and oversized annotations with 422', async () => {
    await create('meta');
    for (const [field, value] of [
      ['uid', 'forged'],
      ['name', 'renamed'],
      ['namespace', 'elsewhere'],
    ] as const) {
      const response = await server().request('PATCH', `${pipelines}/meta`, { body: { metadata: { [field]: value } }, headers: merge });
      expect(response.status, field).toBe(422);
      expect(response.json.details.causes, field).toEqual([
        { field: `metadata.${field}`, reason: 'FieldValueInvalid', message: `Invalid value: "${value}": field is immutable` },
      ]);
    }
    // A changed creationTimestamp is ignored, as kube's rest.BeforeUpdate ignores it.
    const { creationTimestamp } = (await server().request('GET', `${pipelines}/meta`)).json.metadata;
    const retimed = await server().request('PATCH', `${pipelines}/meta`, { body: { metadata: { creationTimestamp: '2001-01-01T00:00:00Z' } }, headers: merge });
    expect(retimed.status, retimed.text).toBe(200);
    expect(retimed.json.metadata.creationTimestamp).toBe(creationTimestamp);
    const badFinalizer = await server().request('PATCH', `${pipelines}/meta`, { body: { metadata: { finalizers: ['Not A Name'] } }, headers: merge });
    expect(badFinalizer.status).toBe(422);
    expect(badFinalizer.json.details.causes[0].field).toBe('metadata.finalizers');
    const huge = await server().request('PATCH', `${pipelines}/meta`, { body: { metadata: { annotations: { big: 'x'.repeat(256 * 1024) } } }, headers: merge });
    expect(huge.status).toBe(422);
    expect(huge.json.details.causes).toContainEqual({
      field: 'metadata.annotations',
      reason: 'FieldValueTooLong',
      message: 'Too long: must have at most 262144 bytes',
    });
  });
});
