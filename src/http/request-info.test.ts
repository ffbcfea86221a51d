import { describe, expect, it } from 'vitest';
import { parseResourcePath } from './request-info.js';

const parse = (method: string, path: string) => parseResourcePath('cairn.dev', 'v1', path.split('/'), method, false);

describe('parseResourcePath', () => {
  it.each([
    ['GET', 'namespaces/ns/pipelines/p/log', 'get', 'log'],
    ['GET', 'namespaces/ns/pipelines/p/logs', 'get', 'log'],
    ['POST', 'namespaces/ns/pipelines/p/log', 'create', 'log'],
    // The alias is authorized under the subresource's name: `create pipelines/log`.
    ['POST', 'namespaces/ns/pipelines/p/logs', 'create', 'log'],
    ['PATCH', 'namespaces/ns/pipelines/p/status', 'patch', 'status'],
    ['GET', 'namespaces/ns/pipelines/p', 'get', undefined],
  ])('%s %s is %s on subresource %s', (method, path, verb, subresource) => {
    expect(parse(method, path)).toEqual({ group: 'cairn.dev', version: 'v1', namespace: 'ns', resource: 'pipelines', name: 'p', subresource, verb });
  });
});
