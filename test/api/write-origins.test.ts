/**
 * Every write records its origin with the event it logs, for the object's history: the
 * request's verb (create, update, patch, apply, delete), its subresource, its field
 * manager as the field manager resolved it, and the user it authenticated as. Read
 * back through storage's history of each object.
 */
import { describe, expect, it } from 'vitest';
import { pipelines as pipelinesResource } from '../../src/apis/cairn/pipelines.js';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { runnerClasses } from '../../src/apis/cairn/runner-classes.js';
import type { Authenticator } from '../../src/auth/user-info.js';
import { resourceStorage } from '../../src/registry/resource-storage.js';
import type { ApiResource } from '../../src/apis/api-resource.js';
import type { WriteOrigin } from '../../src/storage/interfaces.js';
import { inProcessApp } from '../support/in-process-app.js';
import { pipeline } from '../support/test-server.js';

/** Each request is the user its bearer token names. */
const byToken: Authenticator = {
  authenticate: ({ headers }) => {
    const name = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
    return name === undefined ? undefined : { name, groups: ['system:masters', 'system:authenticated'] };
  },
};

const collection = '/apis/cairn.dev/v1/namespaces/origins/pipelines';
const merge = 'application/merge-patch+json';

const origin = (operation: WriteOrigin['operation'], user: string, fieldManager: string, subresource = ''): WriteOrigin => ({
  operation,
  subresource,
  fieldManager,
  user,
});

describe('the origin each write records', () => {
  const server = inProcessApp([cairnGroup], { authenticators: [byToken] });

  /** A request as `user`, from a client that names itself `agent` (the default field manager). */
  const as = (user: string, method: string, path: string, body?: unknown, contentType = 'application/json', agent = 'origin-test/1.0') =>
    server().request(method, path, {
      ...(body !== undefined ? { body } : {}),
      headers: { Authorization: `Bearer ${user}`, 'User-Agent': agent, ...(body !== undefined ? { 'Content-Type': contentType } : {}) },
    });

  /** The origins of the object's revisions, oldest first, and their types. */
  async function origins(resource: ApiResource, namespace: string, name: string): Promise<{ type: string; origin?: WriteOrigin }[]> {
    const { revisions } = await resourceStorage(server().store, resource).history({ namespace, name }, { limit: 100 });
    return revisions.map((r) => ({ type: r.type, ...(r.origin ? { origin: r.origin } : {}) })).reverse();
  }

  it('records the verb, subresource, manager and user of POST, PUT, merge PATCH, apply, status PUT, scale PATCH and DELETE', async () => {
    expect((await as('alice', 'POST', `${collection}?fieldManager=creator`, pipeline('o'))).status).toBe(201);
    const current = (await as('alice', 'GET', `${collection}/o`)).json;
    const put = await as('bob', 'PUT', `${collection}/o`, { ...current, spec: { ...current.spec, replicas: 2 } }, 'application/json', 'kubectl-edit/v1.31.0');
    expect(put.status).toBe(200);
    expect((await as('carol', 'PATCH', `${collection}/o?fieldManager=patcher`, { metadata: { labels: { tier: 'web' } } }, merge)).status).toBe(200);
    const applied = { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'o', annotations: { owner: 'dave' } } };
    expect((await as('dave', 'PATCH', `${collection}/o?fieldManager=applier`, applied, 'application/apply-patch+yaml')).status).toBe(200);
    const status = { ...(await as('erin', 'GET', `${collection}/o`)).json, status: { phase: 'Running' } };
    expect((await as('erin', 'PUT', `${collection}/o/status`, status, 'application/json', 'runner/2')).status).toBe(200);
    expect((await as('frank', 'PATCH', `${collection}/o/scale`, { spec: { replicas: 3 } }, merge, 'hpa/1')).status).toBe(200);
    expect((await as('grace', 'DELETE', `${collection}/o`)).status).toBe(200);
    expect(await origins(pipelinesResource, 'origins', 'o')).toEqual([
      { type: 'ADDED', origin: origin('create', 'alice', 'creator') },
      { type: 'MODIFIED', origin: origin('update', 'bob', 'kubectl-edit') },
      { type: 'MODIFIED', origin: origin('patch', 'carol', 'patcher') },
      { type: 'MODIFIED', origin: origin('apply', 'dave', 'applier') },
      { type: 'MODIFIED', origin: origin('update', 'erin', 'runner', 'status') },
      { type: 'MODIFIED', origin: origin('patch', 'frank', 'hpa', 'scale') },
      { type: 'DELETED', origin: origin('delete', 'grace', '') },
    ]);
  });

  it('records an apply that creates, and a dry run not at all', async () => {
    const applied = { ...pipeline('applied'), metadata: { name: 'applied' } };
    expect((await as('ivan', 'PATCH', `${collection}/applied?fieldManager=kubectl&dryRun=All`, applied, 'application/apply-patch+yaml')).status).toBe(201);
    expect(await origins(pipelinesResource, 'origins', 'applied')).toEqual([]);
    expect((await as('ivan', 'PATCH', `${collection}/applied?fieldManager=kubectl`, applied, 'application/apply-patch+yaml')).status).toBe(201);
    expect(await origins(pipelinesResource, 'origins', 'applied')).toEqual([{ type: 'ADDED', origin: origin('apply', 'ivan', 'kubectl') }]);
  });

  it('records a deletion that finalizers hold on its mark, and the update that removes the last finalizer on the DELETED event', async () => {
    const held = { ...pipeline('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } };
    expect((await as('alice', 'POST', collection, held)).status).toBe(201);
    expect((await as('grace', 'DELETE', `${collection}/held`)).status).toBe(200);
    expect((await as('heidi', 'PATCH', `${collection}/held`, { metadata: { finalizers: null } }, merge, 'finalizer-controller/1')).status).toBe(200);
    expect(await origins(pipelinesResource, 'origins', 'held')).toEqual([
      { type: 'ADDED', origin: origin('create', 'alice', 'origin-test') },
      { type: 'MODIFIED', origin: origin('delete', 'grace', '') },
      { type: 'DELETED', origin: origin('patch', 'heidi', 'finalizer-controller') },
    ]);
  });

  it('records each deletion of a deletecollection as a delete by its user', async () => {
    for (const name of ['c1', 'c2']) expect((await as('alice', 'POST', '/apis/cairn.dev/v1/namespaces/collection/pipelines', pipeline(name))).status).toBe(201);
    expect((await as('judy', 'DELETE', '/apis/cairn.dev/v1/namespaces/collection/pipelines')).status).toBe(200);
    for (const name of ['c1', 'c2']) {
      expect((await origins(pipelinesResource, 'collection', name)).at(-1)).toEqual({ type: 'DELETED', origin: origin('delete', 'judy', '') });
    }
  });

  it('records Cairn’s own writes, with no request, with no manager and no user', async () => {
    expect(await origins(runnerClasses, '', 'standard')).toEqual([{ type: 'ADDED', origin: origin('create', '', '') }]);
  });
});
