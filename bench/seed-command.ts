/**
 * `npx tsx bench/seed-command.ts --data-dir DIR [--database-url URL] --count N [--namespaces 100]`:
 * fills a Cairn database with N Pipelines for the scale measurements (bench/seed.ts).
 *
 * It starts Cairn on the database once to have the API write the template (a create and
 * a status update, so the stored object is what a controller-managed Pipeline looks
 * like, managedFields and all) and delete it again, writes the copies in SQL with the
 * server stopped, then starts Cairn again and reads samples back through the API: a few
 * objects by name, compared with their rows, and a selector's matches, counted.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { isDeepStrictEqual } from 'node:util';
import { pipelines } from '../src/apis/cairn/pipelines.js';
import type { KubeObject } from '../src/machinery/meta/object.js';
import { storageName } from '../src/registry/resource-storage.js';
import { pgliteDirectory } from '../src/server/open-database.js';
import type { Database } from '../src/storage/database.js';
import { PGliteDatabase } from '../src/storage/pglite-database.js';
import { PostgresDatabase } from '../src/storage/postgres-database.js';
import { decodeJsonb } from '../src/storage/stored-text.js';
import { CairnProcess, type CairnOptions } from './cairn-process.js';
import { pipelineManifest, pipelinePath, pipelinesPath } from './pipeline-manifest.js';
import { seedName, seedNamespace, seedPipelines, seededPipeline, type SeedShape } from './seed.js';
import { expectStatus } from './server-access.js';

const templateNamespace = 'seed-template';
const templateName = 'template';

function options(): { location: CairnOptions; shape: SeedShape; batch: number } {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      count: { type: 'string' },
      namespaces: { type: 'string', default: '100' },
      batch: { type: 'string', default: '2000' },
    },
  });
  const dataDir = values['data-dir'];
  const count = Number(values.count);
  const namespaces = Number(values.namespaces);
  if (dataDir === undefined || !Number.isSafeInteger(count) || count < 1 || !Number.isSafeInteger(namespaces) || namespaces < 1)
    throw new Error('usage: seed-command.ts --data-dir DIR [--database-url URL] --count N [--namespaces 100] [--batch 2000]');
  const dir = resolve(dataDir);
  return {
    location: { dataDir: dir, databaseUrl: values['database-url'], logFile: join(dir, 'seed-server.log'), extraArgs: ['--garbage-collector', 'off'] },
    shape: { count, namespaces },
    batch: Number(values.batch),
  };
}

/** Has the API write the template Pipeline (created, then its status set) and delete it; returns it as stored. */
async function writeTemplate(location: CairnOptions): Promise<KubeObject> {
  const server = await CairnProcess.start(location);
  try {
    const manifest = pipelineManifest(templateName);
    const meta = manifest.metadata as { labels: Record<string, string> };
    meta.labels = { ...meta.labels, shard: 's0', track: 'stable', owner: 'team-a' };
    const created = JSON.parse(await expectStatus(server.access, 'POST', pipelinesPath(templateNamespace), { body: JSON.stringify(manifest) })) as KubeObject;
    const withStatus = { ...created, status: { phase: 'Running', replicas: 2, readyReplicas: 2, observedGeneration: 1 } };
    const path = pipelinePath(templateNamespace, templateName);
    const stored = JSON.parse(await expectStatus(server.access, 'PUT', `${path}/status`, { body: JSON.stringify(withStatus) })) as KubeObject;
    await expectStatus(server.access, 'DELETE', path);
    return stored;
  } finally {
    await server.stop();
  }
}

function openDatabase(location: CairnOptions): Promise<Database> {
  if (location.databaseUrl !== undefined) return Promise.resolve(new PostgresDatabase({ connectionString: location.databaseUrl }));
  return PGliteDatabase.open(pgliteDirectory(location.dataDir));
}

/** Reads samples back through the API: objects by name equal to their rows, and every match of a selector. */
async function checkSamples(location: CairnOptions, shape: SeedShape, template: KubeObject): Promise<void> {
  const samples = [0, Math.floor(shape.count / 2), shape.count - 1];
  const database = await openDatabase(location);
  const rows = new Map<number, unknown>();
  try {
    for (const i of samples) {
      const [row] = await database.query('SELECT object FROM cairn_objects WHERE resource = $1 AND namespace = $2 AND name = $3', [
        storageName(pipelines),
        seedNamespace(i, shape),
        seedName(i),
      ]);
      rows.set(i, row === undefined ? undefined : decodeJsonb(row.object as string));
    }
  } finally {
    await database.close();
  }
  const server = await CairnProcess.start(location);
  try {
    for (const i of samples) {
      const read = JSON.parse(await expectStatus(server.access, 'GET', pipelinePath(seedNamespace(i, shape), seedName(i)))) as KubeObject;
      if (!isDeepStrictEqual(read, rows.get(i)))
        throw new Error(`${seedName(i)}: the API read ${JSON.stringify(read)}, its row holds ${JSON.stringify(rows.get(i))}`);
      const expected = seededPipeline(template, i, shape, BigInt(read.metadata!.resourceVersion!));
      if (!isDeepStrictEqual({ ...read, metadata: { ...read.metadata, uid: '' } }, { ...expected, metadata: { ...expected.metadata, uid: '' } }))
        throw new Error(`${seedName(i)} is not the seeded object`);
    }
    const namespace = seedNamespace(7, shape);
    let expected = 0;
    for (let i = 7; i < shape.count; i += shape.namespaces) if (seededPipeline(template, i, shape, 0n).metadata!.labels!.shard === 's7') expected++;
    const list = JSON.parse(await expectStatus(server.access, 'GET', `${pipelinesPath(namespace)}?labelSelector=shard%3Ds7`)) as { items: unknown[] };
    if (list.items.length !== expected) throw new Error(`shard=s7 in ${namespace}: the API listed ${list.items.length}, ${expected} were seeded`);
    process.stderr.write(`read back ${samples.length} objects by name and ${expected} by label selector through the API\n`);
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const { location, shape, batch } = options();
  await mkdir(location.dataDir, { recursive: true });
  process.stderr.write('writing the template through the API\n');
  const template = await writeTemplate(location);
  const database = await openDatabase(location);
  const started = performance.now();
  let seeded;
  try {
    seeded = await seedPipelines(database, {
      ...shape,
      template,
      batch,
      onProgress: (written) => {
        if (written % (batch * 25) === 0 || written === shape.count)
          process.stderr.write(`${written} / ${shape.count} (${Math.round(written / ((performance.now() - started) / 1000))}/s)\n`);
      },
    });
  } finally {
    await database.close();
  }
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`seeded ${shape.count} Pipelines in ${seconds.toFixed(1)} s, resourceVersions ${seeded.first}–${seeded.last}\n`);
  await checkSamples(location, shape, template);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
