/**
 * `npm run storage-migrate` moves objects stored in an older version to the storage
 * version. Rows are written as a release that stored cairn.dev/v1alpha1 wrote them;
 * the real command runs as a child process. On PostgreSQL it runs while a server
 * serves: every row ends in v1, converted; watches opened before see the rewrites as
 * MODIFIED events; and writes racing the migration through the API are all kept
 * (test/storage/storage-versions.test.ts forces the exact interleaving; here the
 * property holds whichever happens). On PGlite it refuses while a server holds the
 * data directory, and migrates once it is stopped.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { writeOlderRow } from '../support/stored-rows.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { openWatch } from '../support/watch-client.js';

const root = join(import.meta.dirname, '..', '..');
const pipelineCount = 40;
const runnerClassCount = 3;

/** Runs `npm run storage-migrate` (its script, as npm would) with `args`. */
function storageMigrate(args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };
  return promisify(execFile)(join(root, 'node_modules/.bin/tsx'), ['src/server/storage-migrate-command.ts', ...args], { cwd: root, env });
}

const name = (i: number) => `p-${String(i).padStart(2, '0')}`;

/** Pipeline `i` as the v1alpha1 release stored it. */
const alphaPipeline = (i: number) => ({
  apiVersion: 'cairn.dev/v1alpha1',
  kind: 'Pipeline',
  metadata: { name: name(i), namespace: 'default', uid: `uid-${name(i)}`, generation: 1, creationTimestamp: '2024-05-01T00:00:00Z' },
  spec: { runnerClass: 'standard', parallelism: (i % 4) + 1, steps: [{ name: 'fetch', image: 'alpine:3.20', run: `echo ${i}` }] },
  status: { phase: 'Running', ready: true },
});

/** Pipeline `i` in v1, as the migration must leave it. */
const v1Pipeline = (i: number) => ({
  apiVersion: 'cairn.dev/v1',
  kind: 'Pipeline',
  metadata: { name: name(i), namespace: 'default', uid: `uid-${name(i)}` },
  spec: { runnerClassName: 'standard', replicas: (i % 4) + 1, steps: [{ name: 'fetch', image: 'alpine:3.20', command: ['sh', '-c', `echo ${i}`] }] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
});

const alphaRunnerClass = (i: number) => ({
  apiVersion: 'cairn.dev/v1alpha1',
  kind: 'RunnerClass',
  metadata: { name: `rc-${i}`, uid: `uid-rc-${i}`, generation: 1, creationTimestamp: '2024-05-01T00:00:00Z' },
  spec: { image: 'alpine:3.20', maxReplicas: 4 },
});

/** Writes the older release's objects. */
async function writeOlderObjects(database: Database): Promise<void> {
  for (let i = 0; i < pipelineCount; i++) {
    const fields = { 'metadata.name': name(i), 'metadata.namespace': 'default', 'spec.runnerClassName': 'standard', 'status.phase': 'Running' };
    await writeOlderRow(database, 'pipelines.cairn.dev', alphaPipeline(i), { fields });
  }
  for (let i = 0; i < runnerClassCount; i++)
    await writeOlderRow(database, 'runnerclasses.cairn.dev', alphaRunnerClass(i), { fields: { 'metadata.name': `rc-${i}` } });
}

/** Every row of `resource`: the version it records and its object. */
async function rowsOf(database: Database, resource: string): Promise<{ api_version: string; object: any }[]> {
  const { rows } = await database.run((db) =>
    sql<{ api_version: string; object: any }>`SELECT api_version, object FROM cairn_objects WHERE resource = ${resource} ORDER BY name`.execute(db),
  );
  // The object column holds JSON text (migration 0007).
  return rows.map((row) => ({ ...row, object: JSON.parse(row.object as string) }));
}

describe('storage-migrate on PostgreSQL, while a server serves', () => {
  let server: TestServer;
  let database: Database;
  beforeAll(async () => {
    server = await startTestServer({ backend: 'postgres' });
    database = new PostgresDatabase({ connectionString: server.databaseUrl! });
    await writeOlderObjects(database);
  });
  afterAll(async () => {
    await database?.close();
    await server?.destroy();
  });

  it('rewrites every object in v1, with a MODIFIED event each, keeping the writes that race it', async () => {
    // The server reads the older rows in v1 before any is migrated.
    const before = await server.request('GET', '/apis/cairn.dev/v1/namespaces/default/pipelines/p-00');
    expect(before.json).toMatchObject(v1Pipeline(0));
    const list = await server.request('GET', '/apis/cairn.dev/v1/namespaces/default/pipelines');
    expect(list.json.items).toHaveLength(pipelineCount);
    const from = list.json.metadata.resourceVersion as string;
    const pipelineWatch = await openWatch(server, `/apis/cairn.dev/v1/namespaces/default/pipelines?watch=true&resourceVersion=${from}`);
    const runnerClassWatch = await openWatch(server, `/apis/cairn.dev/v1/runnerclasses?watch=true&resourceVersion=${from}`);

    const migrating = storageMigrate(['--database-url', server.databaseUrl!, '--data-dir', server.dataDir, '--page-size', '7']);
    // Once the migration has begun, every Pipeline gets a label through the API, the last ones first: they meet the migration midway.
    await pipelineWatch.waitFor(1, 60_000);
    const patches = await Promise.all(
      Array.from({ length: pipelineCount }, (_, i) =>
        server.request('PATCH', `/apis/cairn.dev/v1/namespaces/default/pipelines/${name(pipelineCount - 1 - i)}`, {
          body: { metadata: { labels: { raced: 'yes' } } },
          headers: { 'Content-Type': 'application/merge-patch+json' },
        }),
      ),
    );
    expect(patches.map((p) => p.status)).toEqual(Array(pipelineCount).fill(200));
    const { stdout, stderr } = await migrating;

    const summary = /^pipelines\.cairn\.dev: (\d+) of (\d+) rewritten in cairn\.dev\/v1/m.exec(stdout);
    expect(summary?.[2], stdout).toBe(String(pipelineCount));
    const rewritten = Number(summary![1]);
    expect(stdout).toContain(`runnerclasses.cairn.dev: ${runnerClassCount} of ${runnerClassCount} rewritten in cairn.dev/v1`);
    expect(stderr).toContain(`pipelines.cairn.dev: ${pipelineCount}/${pipelineCount} migrated`);

    // Every row records v1 and holds the converted object, with the label of the racing write.
    const pipelines = await rowsOf(database, 'pipelines.cairn.dev');
    expect(pipelines.map((row) => row.api_version)).toEqual(Array(pipelineCount).fill('cairn.dev/v1'));
    pipelines.forEach((row, i) => {
      expect(row.object).toMatchObject(v1Pipeline(i));
      expect(row.object.metadata.labels).toEqual({ raced: 'yes' });
    });
    const runnerClasses = await rowsOf(database, 'runnerclasses.cairn.dev');
    // The older release's classes, and the one the server seeded when it started (written in v1).
    expect(runnerClasses.map((row) => [row.api_version, row.object.apiVersion])).toEqual(Array(runnerClassCount + 1).fill(['cairn.dev/v1', 'cairn.dev/v1']));

    // The watches heard each rewrite and each labelling, in v1.
    const events = await pipelineWatch.waitFor(rewritten + pipelineCount, 20_000);
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(['MODIFIED']));
    expect(new Set(events.map((e) => e.object.metadata.name))).toEqual(new Set(Array.from({ length: pipelineCount }, (_, i) => name(i))));
    for (const event of events) expect(event.object.spec.runnerClassName).toBe('standard');
    const rcEvents = await runnerClassWatch.waitFor(runnerClassCount, 20_000);
    expect(rcEvents.map((e) => [e.type, e.object.apiVersion, e.object.metadata.name])).toEqual(
      Array.from({ length: runnerClassCount }, (_, i) => ['MODIFIED', 'cairn.dev/v1', `rc-${i}`]),
    );
    pipelineWatch.close();
    runnerClassWatch.close();

    // Nothing is left to do.
    expect((await storageMigrate(['--database-url', server.databaseUrl!, '--data-dir', server.dataDir])).stdout).toContain(
      `pipelines.cairn.dev: 0 of 0 rewritten`,
    );
  });
});

describe('storage-migrate on PGlite', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cairn-storage-migrate-'));
    const database = await PGliteDatabase.open(join(dataDir, 'pglite'));
    await migrateToLatest(database);
    await writeOlderObjects(database);
    await database.close();
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses while the server holds the data directory, and migrates once it is stopped', async () => {
    const server = await startTestServer({ backend: 'pglite', dataDir });
    try {
      const refused = await storageMigrate(['--data-dir', dataDir]).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(refused?.code).toBe(1);
      expect(refused?.stderr).toContain(`in use by process ${process.pid}`);
    } finally {
      await server.close();
    }
    const { stdout } = await storageMigrate(['--data-dir', dataDir]);
    expect(stdout).toContain(`pipelines.cairn.dev: ${pipelineCount} of ${pipelineCount} rewritten in cairn.dev/v1`);
    const database = await PGliteDatabase.open(join(dataDir, 'pglite'));
    try {
      const pipelines = await rowsOf(database, 'pipelines.cairn.dev');
      expect(pipelines.map((row) => row.api_version)).toEqual(Array(pipelineCount).fill('cairn.dev/v1'));
      pipelines.forEach((row, i) => expect(row.object).toMatchObject(v1Pipeline(i)));
    } finally {
      await database.close();
    }
  });
});
