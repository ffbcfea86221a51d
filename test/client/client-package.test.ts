/**
 * The typed client as a project that installs Cairn gets it: `npm pack` (which runs
 * `prepare`, the client's build), the tarball installed into a scratch project, and a
 * TypeScript program there that imports `cairn-apiserver/client`, type-checks against the
 * installed declarations and runs against a started server.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';

const root = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
// npm and the scripts it runs on the test runner's Node 22; the registry through the machine's npm cache.
const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, npm_config_audit: 'false', npm_config_fund: 'false' };
const npm = (args: string[], cwd: string) => run('npm', args, { cwd, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });

/** The version of a package the repository has installed, so the scratch project resolves it from the npm cache. */
async function installedVersion(name: string): Promise<string> {
  return (JSON.parse(await readFile(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The TypeScript blocks of docs/client.md, in order: together they are one program. */
async function documentedClientExamples(): Promise<string> {
  const document = await readFile(join(root, 'docs', 'client.md'), 'utf8');
  const blocks = [...document.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
  expect(blocks.length).toBeGreaterThan(2);
  return blocks.join('\n');
}

/** What a user writes: create a Pipeline, read it back, list (at once and in pages), and keep an Informer's cache. */
const program = `
import { createCairnClient, Informer, isNotFound, keyOf, listWatch, loadKubeconfig, unwrap, type Pipeline, type v1alpha1 } from 'cairn-apiserver/client';

const [kubeconfigPath, name] = process.argv.slice(2);
const client = createCairnClient(await loadKubeconfig(kubeconfigPath));
const manifest: Pipeline = {
  apiVersion: 'cairn.dev/v1',
  kind: 'Pipeline',
  metadata: { name },
  spec: { runnerClassName: 'standard', replicas: 2, steps: [{ name: 'fetch', image: 'alpine:3.20', command: ['echo', 'hi'] }] },
};
const namespace = { namespace: client.namespace };
const created = await unwrap(client.api.POST('/apis/cairn.dev/v1/namespaces/{namespace}/pipelines', { params: { path: namespace }, body: manifest }));
const read = await unwrap(client.api.GET('/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}', { params: { path: { ...namespace, name } } }));
const list = await unwrap(client.api.GET('/apis/cairn.dev/v1/namespaces/{namespace}/pipelines', { params: { path: namespace } }));
const pages: string[][] = [];
for await (const page of client.listPages('/apis/cairn.dev/v1/pipelines', { limit: 1 })) pages.push(page.items.map((p) => p.metadata?.name ?? ''));
const missing = await unwrap(client.api.GET('/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}', { params: { path: { ...namespace, name: 'absent' } } })).catch((error: unknown) => error);

// Another version's path and type, a typed patch of each kind, the scale helper, and a watch that lists first.
const path = { ...namespace, name };
const alpha: v1alpha1.Pipeline = await unwrap(client.api.GET('/apis/cairn.dev/v1alpha1/namespaces/{namespace}/pipelines/{name}', { params: { path } }));
const objectPath = '/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}';
await client.patch(objectPath, { path, type: 'strategic', body: { spec: { steps: [{ name: 'fetch', image: 'alpine:3.21' }] } } });
const applied = await client.patch(objectPath, { path, type: 'apply', fieldManager: 'packaged', force: true, body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', spec: { paused: true } } });
const scaled = await client.scale(path, 4);
const events: string[] = [];
for await (const event of client.listAndWatch('/apis/cairn.dev/v1beta1/namespaces/{namespace}/pipelines', { path: namespace })) {
  events.push(event.type === 'SYNCED' ? event.type : \`\${event.type} \${event.object.metadata?.name} \${event.object.spec?.replicas}\`);
  if (event.type === 'SYNCED') break;
}

const pipelines = new Informer(listWatch(client.api, '/apis/cairn.dev/v1/pipelines'));
const stop = new AbortController();
const running = pipelines.run(stop.signal);
await pipelines.synced;
const cached = pipelines.list().map(keyOf);
stop.abort();
await running;
client.close();

// The types are the generated ones, not any: an unknown path and a misspelled field do not compile.
// @ts-expect-error
void client.api.GET('/apis/cairn.dev/v1/pipelinez');
// @ts-expect-error
const misspelled: Pipeline['spec'] = { runnerClass: 'standard', steps: [] };
void misspelled;

console.log(
  JSON.stringify({
    uid: created.metadata?.uid,
    replicas: read.spec?.replicas,
    listed: list.items.map((p) => p.metadata?.name),
    pages,
    notFound: isNotFound(missing, 'absent'),
    parallelism: alpha.spec?.parallelism,
    patched: [applied.spec?.steps?.[0]?.image, applied.spec?.paused, scaled.spec?.replicas],
    events,
    cached,
  }),
);
`;

describe('the client package (npm pack, installed into another project)', () => {
  let work: string;
  let files: string[];
  let project: string;
  let server: TestServer;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'cairn-client-package-'));
    const { stdout } = await npm(['pack', '--json', '--pack-destination', work], root);
    const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    files = packed.files.map((file) => file.path);

    project = join(work, 'project');
    await mkdir(project);
    // allowScripts: as docs/client.md tells users of npm ≥ 12, which runs no dependency's scripts unless allowed (git installs need `prepare`).
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'uses-cairn', private: true, type: 'module', allowScripts: { 'cairn-apiserver': true } }),
    );
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'nodenext', target: 'es2023', strict: true, noEmit: true, types: ['node'], skipLibCheck: false } }),
    );
    await writeFile(join(project, 'main.ts'), program);
    // Type-checked with it: docs/client.md's examples of the typed client (its blocks in order, one module) and examples/pipeline-client.ts.
    await writeFile(join(project, 'client-docs.ts'), await documentedClientExamples());
    await copyFile(join(root, 'examples/pipeline-client.ts'), join(project, 'pipeline-client.ts'));
    await npm(
      [
        'install',
        '--prefer-offline',
        join(work, packed.filename),
        `typescript@${await installedVersion('typescript')}`,
        `@types/node@${await installedVersion('@types/node')}`,
      ],
      project,
    );
    server = await startTestServer({ backend: 'pglite' });
  }, 240_000);

  afterAll(async () => {
    await server?.destroy();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('packs the built client (with the kubeclient layer under it) and the manifest, without sources, tests, benches or data', () => {
    expect(files).toContain('dist/src/client/index.js');
    expect(files).toContain('dist/src/client/index.d.ts');
    for (const version of ['v1', 'v1beta1', 'v1alpha1']) expect(files).toContain(`dist/src/client/generated/cairn-dev-${version}.d.ts`);
    expect(files).toContain('package.json');
    const shipped = files.filter((path) => !/^dist\/src\/(client|machinery\/kubeclient)\/.*\.(js|d\.ts)$/.test(path));
    expect(shipped.sort()).toEqual(['README.md', 'package.json']);
    expect(files.filter((path) => /generate-|\.test\./.test(path))).toEqual([]);
  });

  it('type-checks a program, the examples of docs/client.md and examples/pipeline-client.ts against the installed declarations', async () => {
    const tsc = join(project, 'node_modules/typescript/bin/tsc');
    // tsc reports to stdout and exits non-zero on an error: its report is the failure message.
    const { stdout } = await run(process.execPath, [tsc, '-p', '.'], { cwd: project, env, timeout: 60_000 }).catch((error: Error & { stdout?: string }) => ({
      stdout: error.stdout || error.message,
    }));
    expect(stdout).toBe('');
  }, 90_000);

  it('runs it against a server: creates, reads (in v1 and v1alpha1), lists at once and in pages, patches, scales, lists and watches, and an Informer caches it', async () => {
    const { stdout } = await run(process.execPath, ['main.ts', server.kubeconfigPath, 'packaged'], { cwd: project, env, timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({
      uid: expect.any(String),
      replicas: 2,
      listed: ['packaged'],
      pages: [['packaged']],
      notFound: true,
      parallelism: 2,
      patched: ['alpine:3.21', true, 4],
      events: ['ADDED packaged 4', 'SYNCED'],
      cached: ['default/packaged'],
    });
  }, 90_000);
});
