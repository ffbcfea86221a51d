/**
 * Discovery as every kubectl from 1.27 to 1.33 performs it against a real Cairn
 * server: 1.27–1.29 ask for aggregated discovery v2beta1 only, 1.30+ for v2 first. Each
 * must discover cairn.dev from `/api` and `/apis` alone, without falling back to the
 * per-group-version requests of legacy discovery.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it, type ExpectStatic } from 'vitest';
import { kubectlAvailable, kubectlMinors, rows, runKubectl, versionedKubectl, type RunResult } from '../support/kubectl.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** The apidiscovery.k8s.io version a kubectl minor gets: the newest it asks for. */
const discoveryVersion = (minor: number) => (minor >= 30 ? 'v2' : 'v2beta1');

// A URL of legacy per-group-version discovery, in the request logs of any version (`GET https://…` or `url="https://…"`).
const legacyGroupVersionRequest = /https:\/\/[^\s"]*\/apis\/cairn\.dev\/v1\b/;

describe.runIf(kubectlAvailable)('kubectl discovery across versions (needs kubectl on PATH)', () => {
  let server: TestServer | undefined;
  const homes: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({ backend: 'pglite' });
  });

  afterAll(async () => {
    await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
    await server?.destroy();
  });

  /** Runs one kubectl minor with a fresh HOME, so its discovery cache starts empty. */
  const kubectlFor = async (minor: number, expect: ExpectStatic) => {
    if (server === undefined) throw new Error('the test server did not start');
    const home = await mkdtemp(join(tmpdir(), `cairn-kubectl-discovery-${minor}-`));
    homes.push(home);
    const env = { ...process.env, KUBECONFIG: server.kubeconfigPath, HOME: home };
    return {
      home,
      async ok(...args: string[]): Promise<RunResult> {
        const result = await runKubectl(versionedKubectl(minor), args, env);
        expect(result.code, `kubectl.1.${minor} ${args.join(' ')}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(0);
        return result;
      },
    };
  };

  describe.concurrent.each(kubectlMinors.map((minor) => ({ minor })))('kubectl.1.$minor', ({ minor }) => {
    it(`lists cairn.dev in api-resources from aggregated discovery ${discoveryVersion(minor)} alone`, async ({ expect }) => {
      const kubectl = await kubectlFor(minor, expect);
      // -v=8 logs every request with its response headers; an empty cache dir forces discovery.
      const { stdout, stderr } = await kubectl.ok('api-resources', '--api-group=cairn.dev', '-v=8', `--cache-dir=${join(kubectl.home, 'cache')}`);
      const table = rows(stdout);
      expect(table[0]).toEqual(['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
      expect(table).toContainEqual(['pipelines', 'pl', 'cairn.dev/v1', 'true', 'Pipeline']);
      expect(table).toContainEqual(['runnerclasses', 'rc', 'cairn.dev/v1', 'false', 'RunnerClass']);
      expect(table).toHaveLength(3);

      expect(stderr).toMatch(/https:\/\/[^\s"]*\/apis\?timeout=/);
      expect(stderr).toContain(`Content-Type: application/json;g=apidiscovery.k8s.io;v=${discoveryVersion(minor)};as=APIGroupDiscoveryList`);
      expect(stderr).not.toMatch(legacyGroupVersionRequest);
    });

    it('reads api-versions and the raw discovery documents', async ({ expect }) => {
      const kubectl = await kubectlFor(minor, expect);
      const versions = (await kubectl.ok('api-versions')).stdout.split('\n');
      expect(versions).toContain('cairn.dev/v1');

      const apis = JSON.parse((await kubectl.ok('get', '--raw', '/apis')).stdout);
      expect(apis.kind).toBe('APIGroupList');
      expect(apis.groups).toContainEqual(expect.objectContaining({ name: 'cairn.dev', preferredVersion: { groupVersion: 'cairn.dev/v1', version: 'v1' } }));

      const resources = JSON.parse((await kubectl.ok('get', '--raw', '/apis/cairn.dev/v1')).stdout);
      expect(resources).toMatchObject({ kind: 'APIResourceList', groupVersion: 'cairn.dev/v1' });
      expect(resources.resources.map((r: { kind: string }) => r.kind)).toEqual(expect.arrayContaining(['Pipeline', 'RunnerClass']));

      const api = JSON.parse((await kubectl.ok('get', '--raw', '/api')).stdout);
      expect(api).toMatchObject({ kind: 'APIVersions', versions: [] });
    });
  });
});
