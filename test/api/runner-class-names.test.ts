/**
 * RunnerClass names follow kube's path-segment rule, as ClusterRole names do (`gpu:large`,
 * `Team A`), while Pipelines keep DNS-subdomain names: validation, references from
 * Pipelines (field selector, printer columns), and every client escaping such names in
 * URLs: the typed client, @kubernetes/client-node, and kubectl 1.27 and 1.33.
 */
import { accessSync, constants } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, type ExpectStatic } from 'vitest';
import { createCairnClient, loadKubeconfig, unwrap } from '../../src/client/index.js';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { inProcessApp } from '../support/in-process-app.js';
import { kubectlAvailable, runKubectl, versionedKubectl, type RunResult } from '../support/kubectl.js';
import { pipeline, runnerClass, sharedTestServer } from '../support/test-server.js';

const runnerClasses = '/apis/cairn.dev/v1/runnerclasses';
const pipelines = (version = 'v1') => `/apis/cairn.dev/${version}/namespaces/names/pipelines`;
const asTable = { Accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' };

interface Cause {
  readonly field: string;
  readonly message: string;
}

describe('RunnerClass names', () => {
  const server = inProcessApp([cairnGroup]);

  /** The causes of the 422 a create of `body` at `path` gets. */
  const refusal = async (path: string, body: unknown): Promise<Cause[]> => {
    const response = await server().request('POST', path, { body });
    expect(response.status, response.text).toBe(422);
    expect(response.json).toMatchObject({ kind: 'Status', reason: 'Invalid' });
    return response.json.details.causes.map(({ field, message }: Cause) => ({ field, message }));
  };

  it('accepts what the path-segment rule accepts, up to 253 characters, and refuses the rest with kube’s messages', async () => {
    const longest = `gpu:${'x'.repeat(249)}`;
    for (const name of ['gpu:large', 'Team A', 'UPPER_case', longest]) {
      const created = await server().request('POST', runnerClasses, { body: runnerClass(name, { maxReplicas: 4 }) });
      expect(created.status, created.text).toBe(201);
      expect(created.json.metadata.name).toBe(name);
      const read = await server().request('GET', `${runnerClasses}/${encodeURIComponent(name)}`);
      expect(read.status, read.text).toBe(200);
      expect(read.json.metadata.name).toBe(name);
    }

    expect(await refusal(runnerClasses, runnerClass(`${longest}x`))).toEqual([
      { field: 'metadata.name', message: `Invalid value: "${longest}x": must be no more than 253 characters` },
    ]);
    expect(await refusal(runnerClasses, runnerClass('ml/large'))).toEqual([
      { field: 'metadata.name', message: `Invalid value: "ml/large": may not contain '/'` },
    ]);
    expect(await refusal(runnerClasses, runnerClass('50%'))).toEqual([{ field: 'metadata.name', message: `Invalid value: "50%": may not contain '%'` }]);
    expect(await refusal(runnerClasses, runnerClass('..'))).toEqual([{ field: 'metadata.name', message: `Invalid value: "..": may not be '..'` }]);

    // generateName follows the same rule, as a prefix: kube's ValidateObjectMeta checks it with the kind's name function.
    const generated = await server().request('POST', runnerClasses, { body: { ...runnerClass(''), metadata: { generateName: 'Team ' } } });
    expect(generated.status, generated.text).toBe(201);
    expect(generated.json.metadata.name).toMatch(/^Team [a-z0-9]{5}$/);
    const badPrefix = await refusal(runnerClasses, { ...runnerClass(''), metadata: { generateName: 'ml/' } });
    expect(badPrefix).toContainEqual({ field: 'metadata.generateName', message: `Invalid value: "ml/": may not contain '/'` });

    // The served OpenAPI says so where kubectl explain and generated clients read it, and so does the API reference.
    const openapi = (await server().request('GET', '/openapi/v3/apis/cairn.dev/v1')).json;
    const reference = await readFile(new URL('../../docs/api-reference.md', import.meta.url), 'utf8');
    const runnerClassSection = reference.slice(reference.indexOf('## RunnerClass'));
    for (const description of [
      openapi.components.schemas['dev.cairn.v1.RunnerClass'].description,
      openapi.components.schemas['dev.cairn.v1.Pipeline'].properties.spec.properties.runnerClassName.description,
      runnerClassSection.split('\n').find((line) => line.startsWith('RunnerClass is')),
    ]) {
      expect(description).toContain("any characters except '/' and '%', not '.' or '..', at most 253 characters");
    }

    // Pipelines keep DNS-subdomain names: theirs appear in label values.
    const [pipelineName] = await refusal(pipelines(), pipeline('gpu:large'));
    expect(pipelineName.field).toBe('metadata.name');
    expect(pipelineName.message).toContain('a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters');
  });

  it('lets Pipelines name any RunnerClass: the field selector finds them and the printer columns show the name, in every version', async () => {
    for (const name of ['gpu:large', 'Team A']) await server().request('POST', runnerClasses, { body: runnerClass(name) });
    for (const [name, className] of [
      ['on-gpu', 'gpu:large'],
      ['on-team', 'Team A'],
      ['on-standard', 'standard'],
    ]) {
      const created = await server().request('POST', pipelines(), { body: pipeline(name, { runnerClassName: className }) });
      expect(created.status, created.text).toBe(201);
    }
    const selected = async (version: string, selector: string) =>
      (await server().request('GET', `${pipelines(version)}?fieldSelector=${encodeURIComponent(selector)}`)).json.items.map(
        (item: { metadata: { name: string } }) => item.metadata.name,
      );
    expect(await selected('v1', 'spec.runnerClassName=gpu:large')).toEqual(['on-gpu']);
    expect(await selected('v1', 'spec.runnerClassName=Team A')).toEqual(['on-team']);
    expect(await selected('v1beta1', 'spec.runnerClassName=gpu:large')).toEqual(['on-gpu']);
    expect(await selected('v1alpha1', 'spec.runnerClass=Team A')).toEqual(['on-team']);

    for (const version of ['v1', 'v1beta1', 'v1alpha1']) {
      const table = (await server().request('GET', `${pipelines(version)}/on-gpu`, { headers: asTable })).json;
      expect(table.columnDefinitions[1].name).toBe('RunnerClass');
      expect(table.rows[0].cells.slice(0, 2)).toEqual(['on-gpu', 'gpu:large']);
    }

    // A reference no RunnerClass could have is refused as such, naming the field of the request's version.
    expect(await refusal(pipelines(), pipeline('on-nothing', { runnerClassName: 'ml/large' }))).toEqual([
      { field: 'spec.runnerClassName', message: `Invalid value: "ml/large": may not contain '/'` },
    ]);
    const alpha = { apiVersion: 'cairn.dev/v1alpha1', kind: 'Pipeline', metadata: { name: 'alpha' }, spec: { runnerClass: '..', steps: [] } };
    expect(await refusal(pipelines('v1alpha1'), alpha)).toEqual([{ field: 'spec.runnerClass', message: `Invalid value: "..": may not be '..'` }]);
  });
});

describe('RunnerClass names through real clients', () => {
  const server = sharedTestServer({ backend: 'pglite' });

  it('the typed client and @kubernetes/client-node escape such names in URLs: get, patch, delete', async () => {
    const client = createCairnClient(await loadKubeconfig(server().kubeconfigPath));
    const kc = new KubeConfig();
    kc.loadFromFile(server().kubeconfigPath);
    const customObjects = kc.makeApiClient(CustomObjectsApi);
    try {
      for (const name of ['typed client:x', 'Team B']) {
        await unwrap(client.api.POST('/apis/cairn.dev/v1/runnerclasses', { body: runnerClass(name) }));
        const read = await unwrap(client.api.GET('/apis/cairn.dev/v1/runnerclasses/{name}', { params: { path: { name } } }));
        expect(read.metadata?.name).toBe(name);
        const patched = await unwrap(
          client.api.PATCH('/apis/cairn.dev/v1/runnerclasses/{name}', {
            params: { path: { name } },
            body: { spec: { maxReplicas: 7 } },
            headers: { 'Content-Type': 'application/merge-patch+json' },
          }),
        );
        expect(patched.spec?.maxReplicas).toBe(7);

        const viaNode = await customObjects.getClusterCustomObject({ group: 'cairn.dev', version: 'v1', plural: 'runnerclasses', name });
        expect((viaNode as { metadata: { name: string } }).metadata.name).toBe(name);
        const labelled = (await customObjects.patchClusterCustomObject({
          group: 'cairn.dev',
          version: 'v1',
          plural: 'runnerclasses',
          name,
          body: [{ op: 'add', path: '/metadata/labels', value: { tier: 'gpu' } }],
        })) as { metadata: { labels: Record<string, string> } };
        expect(labelled.metadata.labels).toEqual({ tier: 'gpu' });
        await customObjects.deleteClusterCustomObject({ group: 'cairn.dev', version: 'v1', plural: 'runnerclasses', name });
        expect((await server().request('GET', `${runnerClasses}/${encodeURIComponent(name)}`)).status).toBe(404);
      }
    } finally {
      client.close();
    }
  });

  describe.runIf(kubectlAvailable)('kubectl with RunnerClasses named gpu:large and "Team A" (needs kubectl on PATH)', () => {
    describe.concurrent.each([27, 33].map((minor) => ({ minor })))('kubectl.1.$minor', ({ minor }) => {
      const binary = versionedKubectl(minor);
      let home = '';

      beforeAll(async () => {
        accessSync(binary, constants.X_OK);
        home = await mkdtemp(join(tmpdir(), `cairn-runnerclass-names-${minor}-`));
      });

      afterAll(async () => {
        if (home !== '') await rm(home, { recursive: true, force: true });
      });

      const kubectlOk = async (expect: ExpectStatic, ...args: string[]): Promise<RunResult> => {
        const result = await runKubectl(binary, args, { ...process.env, KUBECONFIG: server().kubeconfigPath, HOME: home });
        expect(result.code, `kubectl.1.${minor} ${args.join(' ')}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(0);
        return result;
      };

      it.for(['gpu:large', 'Team A'])('creates, gets, describes, patches, labels and deletes runnerclass %j', async (base, { expect }) => {
        const name = `${base} ${minor}`;
        const file = join(home, `${base.replace(/\W/g, '-')}.json`);
        await writeFile(file, JSON.stringify(runnerClass(name, { maxReplicas: 2 })));
        expect((await kubectlOk(expect, 'create', '-f', file)).stdout.trim()).toBe(`runnerclass.cairn.dev/${name} created`);

        const [header, row] = (await kubectlOk(expect, 'get', 'runnerclass', name)).stdout.split('\n');
        expect(header).toMatch(/^NAME\s/);
        expect(row.startsWith(`${name} `)).toBe(true);
        expect((await kubectlOk(expect, 'get', 'runnerclass', name, '-o', 'jsonpath={.metadata.name}')).stdout).toBe(name);
        expect((await kubectlOk(expect, 'describe', 'runnerclass', name)).stdout).toMatch(new RegExp(`^Name:\\s+${name}$`, 'm'));

        const patched = await kubectlOk(expect, 'patch', 'runnerclass', name, '--type=merge', '-p', '{"spec":{"maxReplicas":5}}');
        expect(patched.stdout.trim()).toBe(`runnerclass.cairn.dev/${name} patched`);
        expect((await kubectlOk(expect, 'label', 'runnerclass', name, 'tier=gpu')).stdout.trim()).toBe(`runnerclass.cairn.dev/${name} labeled`);
        const read = JSON.parse((await kubectlOk(expect, 'get', 'runnerclass', name, '-o', 'json')).stdout);
        expect(read.spec.maxReplicas).toBe(5);
        expect(read.metadata.labels).toEqual({ tier: 'gpu' });

        expect((await kubectlOk(expect, 'delete', 'runnerclass', name)).stdout.trim()).toBe(`runnerclass.cairn.dev "${name}" deleted`);
        expect((await server().request('GET', `${runnerClasses}/${encodeURIComponent(name)}`)).status).toBe(404);
      });
    });
  });
});
