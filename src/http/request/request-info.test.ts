/**
 * Reading a request's path as kube's RequestInfoFactory does, and which requests are long-
 * running (watches and logs).
 */
import { describe, expect, it } from 'vitest';
import { cairnGroup } from '../../apis/cairn/register.js';
import { endpointTable } from '../../registry/endpoints.js';
import { isStatusError } from '../../machinery/status.js';
import { isLongRunning, newRequestInfo, subresourceNamesOf, type RequestInfo } from './request-info.js';

/** The names of the subresources Cairn serves (`logs` is `log`, which is long-running). */
const served = subresourceNamesOf(endpointTable([cairnGroup]));
const info = (method: string, path: string, query = ''): RequestInfo => newRequestInfo(method, path, new URLSearchParams(query), served);

describe('newRequestInfo', () => {
  // The cases of k8s.io/apiserver's requestinfo_test.go, moved into a group.
  it.each<[string, string, string, Partial<RequestInfo>]>([
    ['GET', '/apis/cairn.dev/v1/namespaces', '', { verb: 'list', namespace: '', resource: 'namespaces', name: '' }],
    ['GET', '/apis/cairn.dev/v1/namespaces/other', '', { verb: 'get', namespace: 'other', resource: 'namespaces', name: 'other' }],
    [
      'GET',
      '/apis/cairn.dev/v1/namespaces/other/pipelines/foo',
      '',
      { verb: 'get', namespace: 'other', resource: 'pipelines', name: 'foo', parts: ['pipelines', 'foo'] },
    ],
    ['HEAD', '/apis/cairn.dev/v1/namespaces/other/pipelines/foo', '', { verb: 'get', name: 'foo' }],
    ['GET', '/apis/cairn.dev/v1/pipelines', '', { verb: 'list', namespace: '', resource: 'pipelines' }],
    ['GET', '/apis/cairn.dev/v1/namespaces/other/pipelines', '', { verb: 'list', namespace: 'other', resource: 'pipelines' }],
    ['GET', '/apis/cairn.dev/v1/namespaces/other/pipelines', 'watch=true', { verb: 'watch', namespace: 'other', resource: 'pipelines' }],
    ['GET', '/apis/cairn.dev/v1/namespaces/other/pipelines', 'watch=false', { verb: 'list' }],
    ['GET', '/apis/cairn.dev/v1/watch/pipelines', '', { verb: 'watch', namespace: '', resource: 'pipelines' }],
    ['GET', '/apis/cairn.dev/v1/watch/namespaces/other/pipelines/foo', '', { verb: 'watch', namespace: 'other', resource: 'pipelines', name: 'foo' }],
    ['GET', '/apis/cairn.dev/v1/namespaces/other/pipelines', 'fieldSelector=metadata.name%3Dfoo', { verb: 'list', name: 'foo' }],
    [
      'GET',
      '/apis/cairn.dev/v1/namespaces/other/pipelines',
      'watch=1&fieldSelector=metadata.name%3D%3Dfoo,status.phase%3DRunning',
      { verb: 'watch', name: 'foo' },
    ],
    ['GET', '/apis/cairn.dev/v1/namespaces/other/pipelines', 'fieldSelector=metadata.name!%3Dfoo', { verb: 'list', name: '' }],
    ['GET', '/apis/cairn.dev/v1/namespaces/other/pipelines', 'fieldSelector=metadata.name%3D..', { verb: 'list', name: '' }],
    ['GET', '/apis/cairn.dev/v1/namespaces/other/pipelines', 'fieldSelector=%3D%3D%3D', { verb: 'list', name: '' }],
    ['POST', '/apis/cairn.dev/v1/namespaces/other/pipelines', '', { verb: 'create', namespace: 'other', resource: 'pipelines' }],
    ['PUT', '/apis/cairn.dev/v1/namespaces/other/pipelines/foo', '', { verb: 'update', name: 'foo' }],
    ['PATCH', '/apis/cairn.dev/v1/namespaces/other/pipelines/foo/status', '', { verb: 'patch', name: 'foo', subresource: 'status' }],
    ['DELETE', '/apis/cairn.dev/v1/namespaces/other/pipelines/foo', '', { verb: 'delete', name: 'foo' }],
    ['DELETE', '/apis/cairn.dev/v1/namespaces/other/pipelines', '', { verb: 'deletecollection', name: '' }],
    ['GET', '/apis/cairn.dev/v1/namespaces/other/pipelines/foo/logs', '', { subresource: 'log', parts: ['pipelines', 'foo', 'logs'] }],
    ['GET', '/apis/cairn.dev/v1/namespaces/other/pipelines/foo/log/extra', '', { subresource: 'log', parts: ['pipelines', 'foo', 'log', 'extra'] }],
    ['GET', '/apis/cairn.dev/v1/namespaces/other/status', '', { namespace: 'other', resource: 'namespaces', name: 'other', subresource: 'status' }],
    ['GET', '/apis/cairn.dev/v1/proxy/namespaces/other/pipelines/foo/a/b', '', { verb: 'proxy', name: 'foo', subresource: '' }],
    ['GET', '/api/v1/namespaces/other/pods/foo', '', { apiPrefix: 'api', apiGroup: '', apiVersion: 'v1', resource: 'pods', name: 'foo' }],
    ['OPTIONS', '/apis/cairn.dev/v1/pipelines', '', { verb: '' }],
    ['GET', '/apis/cairn.dev/v1/namespaces/a%20b/pipelines', '', { namespace: 'a b' }],
  ])('%s %s?%s is a resource request', (method, path, query, expected) => {
    expect(info(method, path, query)).toMatchObject({ isResourceRequest: true, path, apiPrefix: 'apis', apiGroup: 'cairn.dev', apiVersion: 'v1', ...expected });
  });

  it.each([
    ['GET', '/'],
    ['GET', '/healthz'],
    ['GET', '/readyz/ping'],
    ['GET', '/version'],
    ['GET', '/apis'],
    ['GET', '/apis/cairn.dev'],
    ['GET', '/apis/cairn.dev/v1'],
    ['GET', '/apis/cairn.dev/v1/'],
    ['GET', '/api/v1'],
    ['POST', '/openapi/v3'],
    ['DELETE', '/something/else'],
  ])('%s %s is a non-resource request with the lower-case method as verb', (method, path) => {
    expect(info(method, path)).toEqual({
      isResourceRequest: false,
      path,
      verb: method.toLowerCase(),
      apiPrefix: '',
      apiGroup: '',
      apiVersion: '',
      namespace: '',
      resource: '',
      subresource: '',
      name: '',
      parts: [],
      longRunning: false,
    });
  });

  it.each([['/apis/cairn.dev/v1/watch'], ['/apis/cairn.dev/v1/proxy'], ['/apis/cairn.dev/v1/namespaces/a%zz/pipelines'], ['/healthz%']])(
    'refuses %s with a 400 Status',
    (path) => {
      let error: unknown;
      try {
        info('GET', path);
      } catch (e) {
        error = e;
      }
      expect(isStatusError(error) && error.status).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    },
  );
});

describe('isLongRunning', () => {
  const pipelines = '/apis/cairn.dev/v1/namespaces/ns/pipelines';

  it('holds watches and the log subresource, as kube’s check holds the watch verb and pods/log', () => {
    expect(isLongRunning(info('GET', pipelines, 'watch=true'))).toBe(true);
    expect(isLongRunning(info('GET', '/apis/cairn.dev/v1/watch/pipelines'))).toBe(true);
    expect(isLongRunning(info('GET', `${pipelines}/p/log`, 'follow=true'))).toBe(true);
    expect(isLongRunning(info('GET', `${pipelines}/p/logs`))).toBe(true);
  });

  it('does not hold anything else: reads, writes, the paths off resources', () => {
    for (const [method, path] of [
      ['GET', pipelines],
      ['GET', `${pipelines}/p`],
      ['POST', pipelines],
      ['PUT', `${pipelines}/p/status`],
      ['GET', '/healthz'],
      ['GET', '/metrics'],
    ])
      expect(isLongRunning(info(method, path)), `${method} ${path}`).toBe(false);
  });
});
