/**
 * How the resource route resolves a request from its RequestInfo and the endpoint table:
 * which endpoint and REST method serve each path and verb, and the 400, 404, 405 and 503
 * of what none serves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cairnGroup } from '../apis/cairn/register.js';
import { endpointTable } from '../registry/endpoints.js';
import { Registry } from '../registry/registry.js';
import { migrateToLatest } from '../storage/migrate.js';
import { PGliteDatabase } from '../storage/pglite-database.js';
import { SqlObjectStore } from '../storage/sql-object-store.js';
import { newRequestInfo, subresourceNamesOf } from './request/request-info.js';
import { resolveRequest } from './resource-handler.js';

const v1 = '/apis/cairn.dev/v1';
const pipelines = `${v1}/namespaces/ns/pipelines`;
const served = subresourceNamesOf(endpointTable([cairnGroup]));

describe('resolveRequest', () => {
  let database: PGliteDatabase;
  let objects: SqlObjectStore;
  let registry: Registry;

  beforeAll(async () => {
    database = await PGliteDatabase.open();
    await migrateToLatest(database);
    objects = await SqlObjectStore.open(database);
    registry = new Registry([cairnGroup], objects);
  });
  afterAll(async () => {
    await objects.close();
    await database.close();
  });

  const resolve = (method: string, path: string, query = '') => {
    const [pathname, search = query] = path.split('?');
    return resolveRequest(newRequestInfo(method, pathname, new URLSearchParams(search), served), method, registry.endpoints);
  };

  it.each([
    ['GET', `${pipelines}/p`, '', 'get', 'object', { namespace: 'ns', name: 'p' }],
    ['HEAD', `${pipelines}/p`, '', 'get', 'object', { name: 'p' }],
    ['GET', pipelines, '', 'list', 'list', { namespace: 'ns', name: undefined }],
    ['GET', `${v1}/pipelines`, '', 'list', 'list', { namespace: undefined }],
    ['GET', `${pipelines}?watch=true`, '', 'watch', 'watch', {}],
    ['GET', `${v1}/watch/namespaces/ns/pipelines/p`, '', 'watch', 'watch', { name: 'p' }],
    ['POST', pipelines, '', 'create', 'object', {}],
    ['PUT', `${pipelines}/p`, '', 'update', 'object', {}],
    ['PATCH', `${pipelines}/p`, '', 'update', 'object', {}],
    ['DELETE', `${pipelines}/p`, '', 'delete', 'object', {}],
    ['DELETE', pipelines, '', 'deleteCollection', 'list', {}],
    ['GET', `${pipelines}/p/status`, 'status', 'get', 'object', {}],
    ['PUT', `${pipelines}/p/status`, 'status', 'update', 'object', {}],
    ['PATCH', `${pipelines}/p/scale`, 'scale', 'update', 'object', {}],
    ['GET', `${pipelines}/p/log`, 'log', 'open', undefined, {}],
    ['GET', `${pipelines}/p/logs`, 'log', 'open', undefined, {}],
    ['POST', `${pipelines}/p/log`, 'log', 'append', undefined, {}],
    ['POST', `${pipelines}/p/logs`, 'log', 'append', undefined, {}],
    ['GET', `${v1}/runnerclasses/standard`, '', 'get', 'object', { namespace: undefined, name: 'standard' }],
    ['GET', `${v1}/runnerclasses/standard/status`, 'status', 'get', 'object', {}],
    ['GET', '/apis/cairn.dev/v1alpha1/namespaces/ns/pipelines/p', '', 'get', 'object', {}],
  ])('%s %s is served by %s’s %s', (method, path, subresource, restMethod, output, expected) => {
    const resolved = resolve(method, path);
    expect(resolved.endpoint.subresource).toBe(subresource);
    expect(resolved.method).toBe(restMethod);
    expect(resolved.output).toBe(output);
    expect(resolved).toMatchObject(expected);
  });

  it('finds each endpoint in its own version, with the scope made for it once', () => {
    const v1alpha1 = resolve('GET', '/apis/cairn.dev/v1alpha1/namespaces/ns/pipelines/p').endpoint;
    expect(v1alpha1.scope.version).toBe('v1alpha1');
    expect(resolve('GET', `${pipelines}/p`).endpoint.scope.version).toBe('v1');
    expect(resolve('GET', `${pipelines}/q`).endpoint).toBe(resolve('PUT', `${pipelines}/p`).endpoint);
    expect(resolve('GET', `${pipelines}/p/scale`).endpoint.scope.kind).toBe('Scale');
  });

  it.each([
    ['GET', `${v1}/widgets`, 404],
    ['GET', '/apis/cairn.dev/v9/pipelines', 404],
    ['GET', '/apis/other.dev/v1/pipelines', 404],
    ['GET', `${pipelines}/p/unknown`, 404],
    ['GET', `${pipelines}/p/status/extra`, 404],
    ['DELETE', `${pipelines}/p/status`, 404],
    ['POST', `${pipelines}/p/scale`, 404],
    ['GET', `${pipelines}/`, 404],
    ['POST', `${v1}/watch/namespaces/ns/pipelines`, 404],
    ['GET', `${v1}/proxy/namespaces/ns/pipelines/p`, 404],
    ['GET', `${v1}/namespaces/ns/runnerclasses/standard`, 404],
    ['POST', `${pipelines}/p`, 405],
    ['PUT', pipelines, 405],
    ['PATCH', pipelines, 405],
    ['GET', `${v1}/pipelines/p`, 405],
    ['OPTIONS', `${pipelines}/p`, 405],
    ['GET', `${pipelines}/..`, 400],
    ['GET', `${v1}/namespaces/%2E%2E/pipelines/p`, 400],
  ])('%s %s is a %d', (method, path, code) => {
    expect(() => resolve(method, path)).toThrow(expect.objectContaining({ code }));
  });

  it('answers 503 for what is served once storage is up, and 404 and 405 before it too', () => {
    const endpoints = endpointTable([cairnGroup]);
    const before = (method: string, path: string) => () => resolveRequest(newRequestInfo(method, path, new URLSearchParams(), served), method, endpoints);
    expect(before('GET', `${pipelines}/p/log`)).toThrow(expect.objectContaining({ code: 503 }));
    expect(before('GET', `${v1}/widgets`)).toThrow(expect.objectContaining({ code: 404 }));
    expect(before('POST', `${pipelines}/p`)).toThrow(expect.objectContaining({ code: 405 }));
  });
});
