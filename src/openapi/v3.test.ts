/**
 * The v3 document's paths and operations are the endpoint table's: an endpoint that
 * serves fewer verbs is documented with fewer operations, and one not served has no path.
 */
import { describe, expect, it } from 'vitest';
import { servedGroups } from '../apis/served-groups.js';
import { endpointTable } from '../registry/endpoints.js';
import { groupVersionDocument } from './v3.js';

const [group] = servedGroups;
const served = endpointTable(servedGroups).of(group.name, 'v1');
const pipelines = '/apis/cairn.dev/v1/namespaces/{namespace}/pipelines';
const methodsOf = (item: object | undefined) => Object.keys(item ?? {}).filter((key) => key !== 'parameters');

describe('groupVersionDocument', () => {
  it("documents each served endpoint's verbs", () => {
    const { paths } = groupVersionDocument(group, 'v1', served);
    expect(methodsOf(paths[pipelines])).toEqual(['get', 'post', 'delete']);
    expect(methodsOf(paths[`${pipelines}/{name}`])).toEqual(['get', 'put', 'patch', 'delete']);
    expect(methodsOf(paths[`${pipelines}/{name}/status`])).toEqual(['get', 'put', 'patch']);
    expect(methodsOf(paths['/apis/cairn.dev/v1/pipelines'])).toEqual(['get']);
  });

  it('leaves out the operations of verbs an endpoint does not serve, and the paths of endpoints not served', () => {
    const narrowed = served
      .filter((e) => !(e.resource.plural === 'pipelines' && e.subresource === 'status'))
      .map((e) => (e.resource.plural === 'pipelines' && e.subresource === '' ? { ...e, verbs: ['get', 'list'] } : e));
    const { paths } = groupVersionDocument(group, 'v1', narrowed);
    expect(methodsOf(paths[pipelines])).toEqual(['get']);
    expect(methodsOf(paths[`${pipelines}/{name}`])).toEqual(['get']);
    expect(paths[`${pipelines}/{name}/status`]).toBeUndefined();
    expect(methodsOf(paths['/apis/cairn.dev/v1/pipelines'])).toEqual(['get']);
  });
});
