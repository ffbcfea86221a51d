/**
 * The seeding's two calls on the API: the template Pipeline the API writes and every
 * seeded object copies, and samples of the seeded objects read back through the API
 * and compared with their rows and with what bench/seed.ts meant to write.
 */
import { isDeepStrictEqual } from 'node:util';
import { pipelines } from '../src/apis/cairn/pipelines.js';
import type { KubeObject } from '../src/machinery/meta/object.js';
import { decodeJsonb } from '../src/storage/stored-text.js';
import { storageName } from '../src/registry/resource-storage.js';
import { pgliteDirectory } from '../src/server/open-database.js';
import type { Database } from '../src/storage/database.js';
import { PGliteDatabase } from '../src/storage/pglite-database.js';
import { PostgresDatabase } from '../src/storage/postgres-database.js';
import type { CairnOptions } from './cairn-process.js';
import { CairnProcess } from './cairn-process.js';
import { pipelineManifest, pipelinePath, pipelinesPath } from './pipeline-manifest.js';
import { seedClass, seedName, seedNamespace, seededPipeline, type SeedShape } from './seed.js';
import { expectStatus, type ServerAccess } from './server-access.js';

const templateNamespace = 'seed-template';
const templateName = 'template';

/** Has the API write the template Pipeline (created, then its status set) and delete it; returns it as stored. */
export async function writeSeedTemplate(location: CairnOptions): Promise<KubeObject> {
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

/** The database of `location`, opened directly (PGlite only while no server has it open). */
export function openSeedDatabase(location: Pick<CairnOptions, 'dataDir' | 'databaseUrl'>): Promise<Database> {
  if (location.databaseUrl !== undefined) return Promise.resolve(new PostgresDatabase({ connectionString: location.databaseUrl }));
  return PGliteDatabase.open(pgliteDirectory(location.dataDir));
}

/** Seeded objects' rows, by index, to compare with what the API reads. */
export type SampleRows = ReadonlyMap<number, unknown>;

/** Reads the rows of the first, middle and last object of a seeding of objects `from` to `shape.count - 1`. */
export async function readSampleRows(database: Database, shape: SeedShape, from = 0): Promise<SampleRows> {
  const rows = new Map<number, unknown>();
  for (const i of [from, Math.floor((from + shape.count) / 2), shape.count - 1]) {
    const [row] = await database.query('SELECT object FROM cairn_objects WHERE resource = $1 AND namespace = $2 AND name = $3', [
      storageName(pipelines),
      seedNamespace(i, shape),
      seedName(i),
    ]);
    rows.set(i, row === undefined ? undefined : decodeJsonb(row.object as string));
  }
  return rows;
}

/**
 * Reads the sampled objects through the API, each equal to its row and to the object
 * bench/seed.ts meant to write, and lists a label selector's matches cluster-wide, as
 * many as were seeded; returns a line saying what it checked.
 */
export async function checkSamples(access: ServerAccess, shape: SeedShape, template: KubeObject, rows: SampleRows): Promise<string> {
  for (const [i, row] of rows) {
    const read = JSON.parse(await expectStatus(access, 'GET', pipelinePath(seedNamespace(i, shape), seedName(i)))) as KubeObject;
    if (!isDeepStrictEqual(read, row)) throw new Error(`${seedName(i)}: the API read ${JSON.stringify(read)}, its row holds ${JSON.stringify(row)}`);
    const expected = seededPipeline(template, i, shape, BigInt(read.metadata!.resourceVersion!));
    if (!isDeepStrictEqual({ ...read, metadata: { ...read.metadata, uid: '' } }, { ...expected, metadata: { ...expected.metadata, uid: '' } }))
      throw new Error(`${seedName(i)} is not the seeded object`);
  }
  // Class 7 is label shard=s7 (bench/seed.ts); the bench's own creates carry no shard label.
  let expected = 0;
  for (let i = 0; i < shape.count; i++) if (seedClass(i) === 7) expected++;
  const list = JSON.parse(await expectStatus(access, 'GET', '/apis/cairn.dev/v1/pipelines?labelSelector=shard%3Ds7', { timeoutMs: 300_000 })) as {
    items: unknown[];
  };
  if (list.items.length !== expected) throw new Error(`shard=s7: the API listed ${list.items.length}, ${expected} were seeded`);
  return `read back ${rows.size} objects by name and ${expected} by label selector through the API`;
}
