/**
 * The verb, scope and dry_run labels of kube-apiserver's request metrics, as kube gives them.
 */
import { describe, expect, it } from 'vitest';
import { metricDryRun, metricScope, metricVerb } from './metrics.js';
import { newRequestInfo, subresourceNamesOf } from '../request/request-info.js';
import { cairnGroup } from '../../apis/cairn/register.js';
import { endpointTable } from '../../registry/endpoints.js';

const served = subresourceNamesOf(endpointTable([cairnGroup]));

/** The verb and scope kube-apiserver reports a request under. */
function labels(method: string, path: string, query = '', contentType?: string): [string, string] {
  const info = newRequestInfo(method, path, new URLSearchParams(query), served);
  const scope = metricScope(method, info);
  return [metricVerb(method, contentType, info, scope), scope];
}

const ns = '/apis/cairn.dev/v1/namespaces/ns/pipelines';

describe('kube verb and scope labels', () => {
  it.each<[string, string, string, string | undefined, [string, string]]>([
    ['GET', `${ns}/p`, '', undefined, ['GET', 'resource']],
    ['HEAD', `${ns}/p`, '', undefined, ['GET', 'resource']],
    ['GET', `${ns}/p/status`, '', undefined, ['GET', 'resource']],
    ['GET', ns, '', undefined, ['LIST', 'namespace']],
    ['GET', '/apis/cairn.dev/v1/pipelines', '', undefined, ['LIST', 'cluster']],
    ['GET', '/apis/cairn.dev/v1/runnerclasses', '', undefined, ['LIST', 'cluster']],
    // A name in a field selector authorizes a single object but is still a list.
    ['GET', ns, 'fieldSelector=metadata.name%3Dp', undefined, ['LIST', 'namespace']],
    ['GET', ns, 'watch=true', undefined, ['WATCH', 'namespace']],
    ['GET', '/apis/cairn.dev/v1/watch/namespaces/ns/pipelines/p', '', undefined, ['WATCH', 'resource']],
    ['POST', ns, '', 'application/json', ['POST', 'resource']],
    ['POST', `${ns}/p/log`, '', 'text/plain', ['POST', 'resource']],
    ['PUT', `${ns}/p`, '', 'application/json', ['PUT', 'resource']],
    ['PATCH', `${ns}/p`, '', 'application/merge-patch+json', ['PATCH', 'resource']],
    ['PATCH', `${ns}/p`, '', 'application/apply-patch+yaml; charset=utf-8', ['APPLY', 'resource']],
    ['DELETE', `${ns}/p`, '', undefined, ['DELETE', 'resource']],
    ['DELETE', ns, '', undefined, ['DELETECOLLECTION', 'namespace']],
    ['OPTIONS', ns, '', undefined, ['other', 'namespace']],
    ['GET', '/healthz', '', undefined, ['GET', '']],
    ['HEAD', '/version', '', undefined, ['GET', '']],
    ['POST', '/apis', '', undefined, ['POST', '']],
    ['DELETE', '/apis', '', undefined, ['DELETE', '']],
    ['OPTIONS', '/', '', undefined, ['other', '']],
  ])('%s %s?%s (%s) is %j', (method, path, query, contentType, expected) => {
    expect(labels(method, path, query, contentType)).toEqual(expected);
  });
});

describe('the dry_run label', () => {
  it.each([
    ['', ''],
    ['dryRun=All', 'All'],
    ['dryRun=All&dryRun=All', 'All'],
    ['dryRun=', 'invalid'],
    ['dryRun=All&dryRun=Some', 'invalid'],
  ])('?%s is "%s"', (query, label) => {
    expect(metricDryRun(new URLSearchParams(query))).toBe(label);
  });
});
