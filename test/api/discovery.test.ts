/**
 * Discovery, health, version, OpenAPI and authentication, as kubectl, client-node
 * and kube-apiserver's aggregation layer read them.
 */
import { describe, expect, it } from 'vitest';
import { issueClientCertificate } from '../../src/server/pki.js';
import { sharedTestServer } from '../support/test-server.js';

describe('discovery, health and OpenAPI', () => {
  const server = sharedTestServer({ backend: 'pglite' });

  it('serves /api and /apis with all three versions, v1 preferred', async () => {
    expect((await server().request('GET', '/api')).json).toMatchObject({ kind: 'APIVersions', versions: [] });
    const apis = await server().request('GET', '/apis');
    expect(apis.json).toEqual({
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [
        {
          name: 'cairn.dev',
          versions: ['v1', 'v1beta1', 'v1alpha1'].map((version) => ({ groupVersion: `cairn.dev/${version}`, version })),
          preferredVersion: { groupVersion: 'cairn.dev/v1', version: 'v1' },
        },
      ],
    });
    const group = await server().request('GET', '/apis/cairn.dev');
    expect(group.json).toMatchObject({ kind: 'APIGroup', apiVersion: 'v1', name: 'cairn.dev', preferredVersion: { version: 'v1' } });
  });

  it('serves the APIResourceList the availability probe and clients read', async () => {
    // The aggregator's probe sends no Accept header.
    const res = await server().request('GET', '/apis/cairn.dev/v1');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'cairn.dev/v1' });
    const byName = Object.fromEntries(res.json.resources.map((r: any) => [r.name, r]));
    expect(byName.pipelines).toEqual({
      name: 'pipelines',
      singularName: 'pipeline',
      namespaced: true,
      kind: 'Pipeline',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['pl'],
      categories: ['cairn'],
    });
    expect(byName.runnerclasses).toMatchObject({ namespaced: false, kind: 'RunnerClass', shortNames: ['rc'], categories: ['cairn'] });
    expect((await server().request('GET', '/apis/cairn.dev/v2')).status).toBe(404);
    expect((await server().request('GET', '/apis/other.dev')).status).toBe(404);
  });

  describe('aggregated discovery', () => {
    const aggregated = (version: string) => `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
    /** What kubectl 1.30+ sends to /api and /apis (1.27–1.29 leave out the v2 range). */
    const kubectlAccept = `${aggregated('v2')},${aggregated('v2beta1')},application/json`;

    it('serves an APIGroupDiscoveryList v2 with its exact Content-Type to kubectl 1.30+', async () => {
      const res = await server().request('GET', '/apis', { headers: { Accept: kubectlAccept } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(aggregated('v2'));
      expect(res.headers['vary']).toBe('Accept');
      expect(res.json).toEqual({
        kind: 'APIGroupDiscoveryList',
        apiVersion: 'apidiscovery.k8s.io/v2',
        metadata: {},
        items: [
          {
            metadata: { name: 'cairn.dev' },
            versions: ['v1', 'v1beta1', 'v1alpha1'].map((version) => ({
              version,
              freshness: 'Current',
              resources: [
                {
                  resource: 'pipelines',
                  responseKind: { group: 'cairn.dev', version, kind: 'Pipeline' },
                  scope: 'Namespaced',
                  singularResource: 'pipeline',
                  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
                  shortNames: ['pl'],
                  categories: ['cairn'],
                  subresources: expect.any(Array),
                },
                {
                  resource: 'runnerclasses',
                  responseKind: { group: 'cairn.dev', version, kind: 'RunnerClass' },
                  scope: 'Cluster',
                  singularResource: 'runnerclass',
                  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
                  shortNames: ['rc'],
                  categories: ['cairn'],
                  subresources: expect.any(Array),
                },
              ],
            })),
          },
        ],
      });
    });

    it('lists the same resources, verbs and subresources as the legacy APIResourceList, in every version', async () => {
      const res = await server().request('GET', '/apis', { headers: { Accept: aggregated('v2') } });
      for (const [i, version] of ['v1', 'v1beta1', 'v1alpha1'].entries()) {
        const legacy = (await server().request('GET', `/apis/cairn.dev/${version}`)).json;
        expect(legacy.groupVersion).toBe(`cairn.dev/${version}`);
        const resources = res.json.items[0].versions[i].resources;
        const fromAggregated = resources.flatMap((r: any) => [
          { name: r.resource, kind: r.responseKind.kind, verbs: r.verbs },
          ...r.subresources.map((s: any) => ({ name: `${r.resource}/${s.subresource}`, kind: s.responseKind.kind, verbs: s.verbs })),
        ]);
        const fromLegacy = legacy.resources.map((r: any) => ({ name: r.name, kind: r.kind, verbs: r.verbs }));
        expect(fromAggregated).toEqual(fromLegacy);
      }
    });

    it('serves v2beta1 when that is the best range the client accepts', async () => {
      const cases: ReadonlyArray<readonly [string, string]> = [
        // kubectl 1.27–1.29
        [`${aggregated('v2beta1')},application/json`, 'v2beta1'],
        [`${aggregated('v2beta1')},${aggregated('v2')}`, 'v2beta1'],
        [`${aggregated('v2')};q=0.5,${aggregated('v2beta1')}`, 'v2beta1'],
        [`${aggregated('v2beta1')};q=0.9,${aggregated('v2')}`, 'v2'],
        // A range Cairn cannot write is skipped, not answered.
        [`application/json;as=Table;v=v1;g=meta.k8s.io,${aggregated('v2beta1')}`, 'v2beta1'],
      ];
      for (const [accept, version] of cases) {
        const res = await server().request('GET', '/apis', { headers: { Accept: accept } });
        expect(res.status, accept).toBe(200);
        expect(res.headers['content-type'], accept).toBe(aggregated(version));
        expect(res.json.apiVersion, accept).toBe(`apidiscovery.k8s.io/${version}`);
        expect(
          res.json.items.map((g: any) => g.metadata.name),
          accept,
        ).toEqual(['cairn.dev']);
      }
    });

    it('answers a matching If-None-Match with 304 and no body', async () => {
      const first = await server().request('GET', '/apis', { headers: { Accept: aggregated('v2') } });
      const etag = first.headers['etag'] as string;
      expect(etag).toMatch(/^"[0-9A-F]{128}"$/);
      // The ETag is stable while the content is.
      expect((await server().request('GET', '/apis', { headers: { Accept: aggregated('v2') } })).headers['etag']).toBe(etag);

      const cached = await server().request('GET', '/apis', { headers: { Accept: aggregated('v2'), 'If-None-Match': etag } });
      expect(cached.status).toBe(304);
      expect(cached.text).toBe('');
      expect(cached.headers['etag']).toBe(etag);
      expect(cached.headers['vary']).toBe('Accept');

      const stale = await server().request('GET', '/apis', { headers: { Accept: aggregated('v2'), 'If-None-Match': '"0123"' } });
      expect(stale.status).toBe(200);
      expect(stale.json.kind).toBe('APIGroupDiscoveryList');

      // Another representation has another ETag: a v2 validator does not revalidate v2beta1.
      const beta = await server().request('GET', '/apis', { headers: { Accept: aggregated('v2beta1'), 'If-None-Match': etag } });
      expect(beta.status).toBe(200);
      expect(beta.headers['etag']).toMatch(/^"[0-9A-F]{128}"$/);
      expect(beta.headers['etag']).not.toBe(etag);
    });

    it('keeps the legacy documents for plain JSON and wildcard Accepts', async () => {
      const accepts = [
        undefined,
        'application/json',
        '*/*',
        'application/json, */*',
        `application/json,${aggregated('v2')}`,
        `${aggregated('v2')};q=0.5,application/json`,
      ];
      for (const accept of accepts) {
        const headers: Record<string, string> = accept === undefined ? {} : { Accept: accept };
        const apis = await server().request('GET', '/apis', { headers });
        expect(apis.status, accept).toBe(200);
        expect(apis.headers['content-type'], accept).toMatch(/^application\/json(; charset=utf-8)?$/);
        expect(apis.json.kind, accept).toBe('APIGroupList');
        expect(apis.headers['etag'], accept).toBeUndefined();
        const api = await server().request('GET', '/api', { headers });
        expect(api.headers['content-type'], accept).toMatch(/^application\/json(; charset=utf-8)?$/);
        expect(api.json.kind, accept).toBe('APIVersions');
      }
    });

    it('serves /api as an aggregated list with no groups, since Cairn has no core group', async () => {
      for (const version of ['v2', 'v2beta1']) {
        const res = await server().request('GET', '/api', { headers: { Accept: kubectlAccept.replace(aggregated('v2'), aggregated(version)) } });
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe(aggregated(version));
        expect(res.json).toEqual({ kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items: [] });
        expect(res.headers['etag']).toMatch(/^"[0-9A-F]{128}"$/);
      }
    });

    it('answers 406 to an Accept asking only for a discovery version it does not serve', async () => {
      const res = await server().request('GET', '/apis', { headers: { Accept: aggregated('v3') } });
      expect(res.status).toBe(406);
      expect(res.json).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    });
  });

  it('serves /version with the Kubernetes minor kubectl dispatches on', async () => {
    const res = await server().request('GET', '/version', { clientCert: null });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ major: '1', minor: expect.stringMatching(/^\d+$/) });
    expect(res.json.gitVersion).toMatch(/^v1\.\d+\.\d+/);
  });

  it('answers health checks as kube-apiserver does, without credentials', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const res = await server().request('GET', path, { clientCert: null });
      expect(res.status).toBe(200);
      expect(res.text).toBe('ok');
    }
    const verbose = await server().request('GET', '/readyz?verbose', { clientCert: null });
    expect(verbose.text).toBe(
      '[+]ping ok\n[+]log ok\n[+]database ok\n[+]poststarthook/storage-ready ok\n[+]poststarthook/start-compaction ok\n[+]shutdown ok\nreadyz check passed\n',
    );
    expect((await server().request('GET', '/readyz/database', { clientCert: null })).text).toBe('ok');
    expect((await server().request('GET', '/readyz/nope', { clientCert: null })).status).toBe(404);
  });

  it('publishes OpenAPI v3 that kubectl validates and patches with', async () => {
    const root = await server().request('GET', '/openapi/v3');
    const entry = root.json.paths['apis/cairn.dev/v1'];
    expect(entry.serverRelativeURL).toMatch(/^\/openapi\/v3\/apis\/cairn\.dev\/v1\?hash=[0-9A-F]+$/);
    const doc = await server().request('GET', entry.serverRelativeURL);
    expect(doc.status).toBe(200);
    expect(doc.headers['cache-control']).toContain('immutable');
    const item = doc.json.paths['/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}'];
    expect(item.patch['x-kubernetes-group-version-kind']).toEqual({ group: 'cairn.dev', version: 'v1', kind: 'Pipeline' });
    expect(item.patch.parameters.map((p: any) => p.name)).toContain('fieldValidation');
    expect(Object.keys(item.patch.requestBody.content).sort()).toEqual([
      'application/apply-patch+yaml',
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
    ]);
    expect(doc.json.paths['/apis/cairn.dev/v1/pipelines'].get['x-kubernetes-action']).toBe('list');
    expect(doc.json.paths['/apis/cairn.dev/v1/runnerclasses/{name}'].put).toBeDefined();
    const schemas = doc.json.components.schemas;
    const pipeline = schemas['dev.cairn.v1.Pipeline'];
    expect(pipeline['x-kubernetes-group-version-kind']).toEqual([{ group: 'cairn.dev', version: 'v1', kind: 'Pipeline' }]);
    expect(pipeline.properties.spec.properties.steps).toMatchObject({
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    });
    expect(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties.labels.additionalProperties).toEqual({ type: 'string' });
    expect(schemas['dev.cairn.v1.PipelineList']).toBeDefined();
    // Every reference resolves inside the document.
    const refs = [...JSON.stringify(doc.json).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(schemas[ref], ref).toBeDefined();
  });

  it('serves Prometheus metrics to authenticated clients, labelled with the version requested', async () => {
    await server().request('GET', '/apis/cairn.dev/v1alpha1/namespaces/metrics/pipelines');
    const res = await server().request('GET', '/metrics');
    expect(res.status).toBe(200);
    const labels = 'verb="LIST",dry_run="",group="cairn.dev",version="v1alpha1",resource="pipelines",subresource="",scope="namespace",component="apiserver"';
    expect(res.text).toMatch(new RegExp(`^apiserver_request_total\\{${labels},code="200"\\} [1-9]\\d*$`, 'm'));
    expect(res.text).toMatch(new RegExp(`^apiserver_request_duration_seconds_bucket\\{le="60",${labels}\\} [1-9]\\d*$`, 'm'));
    expect(res.text).toMatch(new RegExp(`^apiserver_request_duration_seconds_count\\{${labels}\\} [1-9]\\d*$`, 'm'));
  });

  describe('authentication', () => {
    it('refuses requests without a client certificate with a 401 Status', async () => {
      for (const path of ['/apis', '/apis/cairn.dev/v1', '/apis/cairn.dev/v1/namespaces/default/pipelines', '/openapi/v3', '/metrics']) {
        const res = await server().request('GET', path, { clientCert: null });
        expect(res.status, path).toBe(401);
        expect(res.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
      }
    });

    it('refuses a certificate from another CA', async () => {
      const { issueOtherCa } = await import('../support/other-ca.js');
      const stranger = await issueOtherCa();
      const res = await server().request('GET', '/apis', { clientCert: stranger });
      expect(res.status).toBe(401);
    });

    it('authenticates any certificate from the local client CA; outside the admin group, its user reads discovery only', async () => {
      const jane = issueClientCertificate(server().pki.clientCaPem, server().pki.clientCaKeyPem, { commonName: 'jane', organizations: ['devs'] });
      expect((await server().request('GET', '/apis', { clientCert: jane })).status).toBe(200);
      const res = await server().request('GET', '/apis/cairn.dev/v1/namespaces/default/pipelines', { clientCert: jane });
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({
        kind: 'Status',
        reason: 'Forbidden',
        message: 'pipelines.cairn.dev is forbidden: User "jane" cannot list resource "pipelines" in API group "cairn.dev" in the namespace "default"',
      });
    });
  });
});
