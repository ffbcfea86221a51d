/**
 * Deletion as kube-apiserver does it: finalizers and deletionTimestamp, propagation
 * policies, preconditions, deletecollection; and the ObjectMeta rules of writes
 * (immutable fields, ownerReferences, finalizer names, annotation size). The answers
 * kube-apiserver 1.34 gives a CustomResource (status codes, generation, preconditions'
 * Status) are checked in process.
 */
import { describe, expect, it } from 'vitest';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { inProcessApp } from '../support/in-process-app.js';
import { pipeline } from '../support/test-server.js';
import { openWatch } from '../support/watch-client.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/deletes/pipelines';
const merge = { 'Content-Type': 'application/merge-patch+json' };

/** kube's 422 on DeleteOptions: no name in the details. */
const deleteOptionsInvalid = (summary: string, causes: readonly object[]) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: `DeleteOptions.meta.k8s.io "" is invalid: ${summary}`,
  reason: 'Invalid',
  details: { group: 'meta.k8s.io', kind: 'DeleteOptions', causes },
  code: 422,
});

/** kube's 409 of a delete precondition (rest.BeforeDelete): it names the kind, not the resource. */
const preconditionFailed = (name: string, why: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: `Operation cannot be fulfilled on Pipeline.cairn.dev "${name}": ${why}`,
  reason: 'Conflict',
  details: { name, group: 'cairn.dev', kind: 'Pipeline' },
  code: 409,
});

describe('deletion', () => {
  const server = inProcessApp([cairnGroup]);

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
    expect(last.json.metadata.finalizers).toBeUndefined();
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
    expect(both.json).toEqual(
      deleteOptionsInvalid('propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set', [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
          field: 'propagationPolicy',
        },
      ]),
    );
    const unknown = await server().request('DELETE', `${pipelines}/opts`, { body: { propagationPolicy: 'Sometimes' } });
    const unsupported = 'Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan", "nil"';
    expect(unknown.json).toEqual(
      deleteOptionsInvalid(`propagationPolicy: ${unsupported}`, [{ reason: 'FieldValueNotSupported', message: unsupported, field: 'propagationPolicy' }]),
    );
    const staleUid = await server().request('DELETE', `${pipelines}/opts`, { body: { preconditions: { uid: 'other' } } });
    expect(staleUid.json).toEqual(
      preconditionFailed(
        'opts',
        `the UID in the precondition (other) does not match the UID in record (${target.metadata.uid}). The object might have been deleted and then recreated`,
      ),
    );
    const staleRv = await server().request('DELETE', `${pipelines}/opts`, { body: { preconditions: { resourceVersion: '1' } } });
    expect(staleRv.json).toEqual(
      preconditionFailed(
        'opts',
        `the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${target.metadata.resourceVersion}). The object might have been modified`,
      ),
    );
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
    // kube's ValidateOwnerReference, one cause each, against the list's path; the schema's `required` adds none.
    const { uid: _, ...withoutUid } = owner;
    const eventOwner = { apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u1' };
    for (const [reference, field, message] of [
      [withoutUid, 'metadata.ownerReferences.uid', 'Invalid value: "": must not be empty'],
      [{ ...owner, uid: '' }, 'metadata.ownerReferences.uid', 'Invalid value: "": must not be empty'],
      [{ ...owner, kind: '' }, 'metadata.ownerReferences.kind', 'Invalid value: "": must not be empty'],
      [{ ...owner, name: '' }, 'metadata.ownerReferences.name', 'Invalid value: "": must not be empty'],
      [{ ...owner, apiVersion: 'cairn.dev/' }, 'metadata.ownerReferences.apiVersion', 'Invalid value: "cairn.dev/": version must not be empty'],
      [
        { name: 'e', uid: 'u1', kind: 'Event', apiVersion: 'v1' },
        'metadata.ownerReferences',
        `Invalid value: ${JSON.stringify(eventOwner)}: /v1, Kind=Event is disallowed from being an owner`,
      ],
    ] as const) {
      const refused = await server().request('POST', pipelines, {
        body: { ...pipeline('refused'), metadata: { name: 'refused', ownerReferences: [reference] } },
      });
      expect(refused.json, field).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `Pipeline.cairn.dev "refused" is invalid: ${field}: ${message}`,
        reason: 'Invalid',
        details: { name: 'refused', group: 'cairn.dev', kind: 'Pipeline', causes: [{ reason: 'FieldValueInvalid', message, field }] },
        code: 422,
      });
    }
    const twoControllers = await server().request('POST', pipelines, {
      body: { ...pipeline('two'), metadata: { name: 'two', ownerReferences: [owner, { ...owner, name: 'other', uid: 'u2' }] } },
    });
    expect(twoControllers.status).toBe(422);
    expect(twoControllers.json.message).toContain('Only one reference can have Controller set to true');
  });

  it('refuses changes to immutable metadata, bad finalizers and oversized annotations with 422', async () => {
    await create('meta');
    const forged = await server().request('PATCH', `${pipelines}/meta`, { body: { metadata: { uid: 'forged' } }, headers: merge });
    expect(forged.status).toBe(422);
    expect(forged.json.details.causes).toEqual([
      { field: 'metadata.uid', reason: 'FieldValueInvalid', message: 'Invalid value: "forged": field is immutable' },
    ]);
    // The name and namespace are the URL's: another is a 400 from the patcher, before validation, as in kube.
    for (const [field, value, message] of [
      ['name', 'renamed', 'the name of the object (renamed) does not match the name on the URL (meta)'],
      ['namespace', 'elsewhere', 'the namespace of the provided object does not match the namespace sent on the request'],
    ] as const) {
      const response = await server().request('PATCH', `${pipelines}/meta`, { body: { metadata: { [field]: value } }, headers: merge });
      expect(response.json, field).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest', message });
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
      message: 'Too long: may not be more than 262144 bytes',
    });
  });
});

describe('deletion answers as kube-apiserver answers a CustomResource (in process)', () => {
  const app = inProcessApp([cairnGroup]);
  const path = '/apis/cairn.dev/v1/namespaces/kube-answers/pipelines';
  const held = async (name: string, finalizers: readonly string[] = ['example.com/hold']) => {
    const res = await app().request('POST', path, { body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name, finalizers }, spec: {} } });
    expect(res.status, res.text).toBe(201);
    return res.json;
  };

  it('bumps the generation when a delete first marks the object, and not again', async () => {
    const created = await held('gen');
    expect(created.metadata.generation).toBe(1);
    const first = await app().request('DELETE', `${path}/gen`);
    expect(first.status).toBe(200);
    expect(first.json.metadata).toMatchObject({ generation: 2, deletionGracePeriodSeconds: 0, finalizers: ['example.com/hold'] });
    const again = await app().request('DELETE', `${path}/gen`);
    expect(again.json.metadata).toMatchObject({ generation: 2, resourceVersion: first.json.metadata.resourceVersion });
    expect((await app().request('GET', `${path}/gen`)).json.metadata.generation).toBe(2);
  });

  // kube answers 202 only for orphanDependents=false on an object it keeps; no propagationPolicy does (observed on kube-apiserver 1.34).
  it.each<[string, string, string, unknown, readonly string[], number]>([
    ['orphanDependents=false in the body', 'odf-body', '', { orphanDependents: false }, ['example.com/hold'], 202],
    ['orphanDependents=false in the query', 'odf-query', '?orphanDependents=false', undefined, ['example.com/hold'], 202],
    ['orphanDependents=false, dry run', 'odf-dry', '?dryRun=All', { orphanDependents: false }, ['example.com/hold'], 202],
    ['orphanDependents=false on an object deleted at once', 'odf-gone', '', { orphanDependents: false }, [], 200],
    ['orphanDependents=true', 'odt', '', { orphanDependents: true }, ['example.com/hold'], 200],
    ['propagationPolicy=Foreground', 'pp-fg', '', { propagationPolicy: 'Foreground' }, ['example.com/hold'], 200],
    ['propagationPolicy=Foreground without finalizers', 'pp-fg-bare', '', { propagationPolicy: 'Foreground' }, [], 200],
    ['propagationPolicy=Background', 'pp-bg', '', { propagationPolicy: 'Background' }, ['example.com/hold'], 200],
    ['propagationPolicy=Orphan', 'pp-or', '?propagationPolicy=Orphan', undefined, ['example.com/hold'], 200],
  ])('answers %s as kube does', async (_, name, query, body, finalizers, code) => {
    await held(name, finalizers);
    const res = await app().request('DELETE', `${path}/${name}${query}`, body === undefined ? {} : { body });
    expect(res.status, res.text).toBe(code);
    expect(res.json).toMatchObject({ kind: 'Pipeline', metadata: { name } });
  });

  it('answers 202 again for a repeated delete of an object finalizers hold', async () => {
    await held('repeat');
    expect((await app().request('DELETE', `${path}/repeat`)).status).toBe(200);
    expect((await app().request('DELETE', `${path}/repeat`, { body: { orphanDependents: false } })).status).toBe(202);
  });

  it.each([
    ['a merge patch', 'PATCH'],
    ['a PUT', 'PUT'],
  ])('answers %s that takes the last finalizer with the object as updated, then removes it', async (_, method) => {
    const name = `last-${method.toLowerCase()}`;
    await held(name);
    const marked = (await app().request('DELETE', `${path}/${name}`)).json;
    const res =
      method === 'PATCH'
        ? await app().request('PATCH', `${path}/${name}`, { body: { metadata: { finalizers: null } }, headers: merge })
        : await app().request('PUT', `${path}/${name}`, { body: { ...marked, metadata: { ...marked.metadata, finalizers: [] } } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.metadata.finalizers).toBeUndefined();
    expect(res.json.metadata).toMatchObject({
      resourceVersion: marked.metadata.resourceVersion,
      deletionTimestamp: marked.metadata.deletionTimestamp,
      generation: 2,
    });
    expect((await app().request('GET', `${path}/${name}`)).status).toBe(404);
  });

  it("refuses a PUT whose uid is not the object's with 409, as kube's storage precondition; a patch of the uid stays a 422", async () => {
    const created = await held('uid', []);
    const forged = '00000000-0000-0000-0000-000000000000';
    // Before the missing resourceVersion or anything else.
    const put = await app().request('PUT', `${path}/uid`, { body: { ...created, metadata: { ...created.metadata, uid: forged, resourceVersion: '1' } } });
    expect(put.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Operation cannot be fulfilled on pipelines.cairn.dev "uid": StorageError: invalid object, Code: 4, Key: /registry/cairn.dev/pipelines/kube-answers/uid, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${forged}, UID in object meta: ${created.metadata.uid}`,
      reason: 'Conflict',
      details: { name: 'uid', group: 'cairn.dev', kind: 'pipelines' },
      code: 409,
    });
    const patch = await app().request('PATCH', `${path}/uid`, { body: { metadata: { uid: forged } }, headers: merge });
    expect(patch.status).toBe(422);
    expect(patch.json.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: `Invalid value: "${forged}": field is immutable`, field: 'metadata.uid' },
    ]);
  });

  it('answers a deletecollection with the objects as listed, before deletion: one a finalizer holds unmarked, though marked in storage', async () => {
    const kept = await held('listed-held');
    const gone = await held('listed-gone', []);
    const res = await app().request('DELETE', `${path}?fieldSelector=metadata.name!%3Dpre`);
    expect(res.status, res.text).toBe(200);
    const answered = res.json.items.filter((i: { metadata: { name: string } }) => i.metadata.name.startsWith('listed-'));
    expect(answered).toEqual([gone, kept]);
    expect((await app().request('GET', `${path}/listed-held`)).json.metadata).toMatchObject({ deletionTimestamp: expect.any(String), generation: 2 });
    expect((await app().request('GET', `${path}/listed-gone`)).status).toBe(404);
  });

  it("checks delete preconditions as kube's rest.BeforeDelete, naming the kind, on deletecollection too", async () => {
    const created = await held('pre', []);
    const uid = await app().request('DELETE', `${path}/pre`, { body: { preconditions: { uid: 'not-the-uid' } } });
    expect(uid.json).toEqual(
      preconditionFailed(
        'pre',
        `the UID in the precondition (not-the-uid) does not match the UID in record (${created.metadata.uid}). The object might have been deleted and then recreated`,
      ),
    );
    const collection = await app().request('DELETE', `${path}?fieldSelector=metadata.name%3Dpre`, { body: { preconditions: { resourceVersion: '1' } } });
    expect(collection.json).toEqual(
      preconditionFailed(
        'pre',
        `the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${created.metadata.resourceVersion}). The object might have been modified`,
      ),
    );
    expect((await app().request('GET', `${path}/pre`)).status).toBe(200);
  });
});
