/**
 * Discovery, health, version, OpenAPI and authentication, as kubectl, client-node
 * and kube-apiserver's aggregation layer read them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueClientCertificate } from '../src/server/pki.js';
import { startTestServer, type TestServer } from './support/test-server.js';

describe('discovery, health and OpenAPI', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ backend: 'pglite' });
  });
  afterAll(async () => {
    await server?.destroy();
  });

  it('serves /api and /apis with v1 preferred', async () => {
    expect((await server.request('GET', '/api')).json).toMatchObject({ kind: 'APIVersions', versions: [] });
    const apis = await server.request('GET', '/apis');
    expect(apis.json).toEqual({
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [
        {
          name: 'cairn.dev',
          versions: [{ groupVersion: 'cairn.dev/v1', version: 'v1' }],
          preferredVersion: { groupVersion: 'cairn.dev/v1', version: 'v1' },
        },
      ],
    });
    const group = await server.request('GET', '/apis/cairn.dev');
    expect(group.json).toMatchObject({ kind: 'APIGroup', apiVersion: 'v1', name: 'cairn.dev', preferredVersion: { version: 'v1' } });
  });

  it('serves the APIResourceList the availability probe and clients read', async () => {
    // The aggregator's probe sends no Accept header.
    const res = await server.request('GET', '/apis/cairn.dev/v1');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'cairn.dev/v1' });
    const byName = Object.fromEntries(res.json.resources.map((r: any) => [r.name, r]));
    expect(byName.pipelines).toEqual({
      name: 'pipelines',
      singularName: 'pipeline',
      namespaced: true,
      kind: 'Pipeline',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['pl'],
      categories: ['cairn'],
    });
    expect(byName.runnerclasses).toMatchObject({ namespaced: false, kind: 'RunnerClass', shortNames: ['rc'], categories: ['cairn'] });
    expect((await server.request('GET', '/apis/cairn.dev/v2')).status).toBe(404);
    expect((await server.request('GET', '/apis/other.dev')).status).toBe(404);
  });

  it('serves /version with the Kubernetes minor kubectl dispatches on', async () => {
    const res = await server.request('GET', '/version', { clientCert: null });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ major: '1', minor: expect.stringMatching(/^\d+$/) });
    expect(res.json.gitVersion).toMatch(/^v1\.\d+\.\d+/);
  });

  it('answers health checks as kube-apiserver does, without credentials', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const res = await server.request('GET', path, { clientCert: null });
      expect(res.status).toBe(200);
      expect(res.text).toBe('ok');
    }
    const verbose = await server.request('GET', '/readyz?verbose', { clientCert: null });
    expect(verbose.text).toBe('[+]ping ok\n[+]migrations ok\n[+]database ok\n[+]shutdown ok\nreadyz check passed\n');
    expect((await server.request('GET', '/readyz/database', { clientCert: null })).text).toBe('ok');
    expect((await server.request('GET', '/readyz/nope', { clientCert: null })).status).toBe(404);
  });

  it('publishes OpenAPI v3 that kubectl validates and patches with', async () => {
    const root = await server.request('GET', '/openapi/v3');
    const entry = root.json.paths['apis/cairn.dev/v1'];
    expect(entry.serverRelativeURL).toMatch(/^\/openapi\/v3\/apis\/cairn\.dev\/v1\?hash=[0-9A-F]+$/);
    const doc = await server.request('GET', entry.serverRelativeURL);
    expect(doc.status).toBe(200);
    expect(doc.headers['cache-control']).toContain('immutable');
    const item = doc.json.paths['/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}'];
    expect(item.patch['x-kubernetes-group-version-kind']).toEqual({ group: 'cairn.dev', version: 'v1', kind: 'Pipeline' });
    expect(item.patch.parameters.map((p: any) => p.name)).toContain('fieldValidation');
    expect(Object.keys(item.patch.requestBody.content).sort()).toEqual(['application/json-patch+json', 'application/merge-patch+json']);
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
    const refs = [...JSON.stringify(doc.json).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(schemas[ref], ref).toBeDefined();
  });

  it('serves Prometheus metrics to authenticated clients', async () => {
    const res = await server.request('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toContain('apiserver_request_total');
  });

  describe('authentication', () => {
    it('refuses requests without a client certificate with a 401 Status', async () => {
      for (const path of ['/apis', '/apis/cairn.dev/v1', '/apis/cairn.dev/v1/namespaces/default/pipelines', '/openapi/v3', '/metrics']) {
        const res = await server.request('GET', path, { clientCert: null });
        expect(res.status, path).toBe(401);
        expect(res.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
      }
    });

    it('refuses a certificate from another CA', async () => {
      const { issueOtherCa } = await import('./support/other-ca.js');
      const stranger = await issueOtherCa();
      const res = await server.request('GET', '/apis', { clientCert: stranger });
      expect(res.status).toBe(401);
    });

    it('accepts any certificate from the local client CA', async () => {
      const other = issueClientCertificate(server.pki.clientCaPem, server.pki.clientCaKeyPem, { commonName: 'jane', organizations: ['devs'] });
      const res = await server.request('GET', '/apis/cairn.dev/v1/namespaces/default/pipelines', { clientCert: other });
      expect(res.status).toBe(200);
    });
  });
});
