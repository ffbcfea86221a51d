/**
 * `npx tsx bench/event-log-disk-command.ts [--backend pglite|postgres] [--updates 20000] [--rate 10]`:
 * what a day of history costs on disk. It writes `--updates` updates to 100 Pipelines
 * (each a bench Pipeline as the API stores it, managedFields and all, about 1.9 KB),
 * measures the event log's size (`pg_total_relation_size`: the table, its TOAST and
 * its indexes) before and after, and extrapolates the bytes one update adds to a day at
 * `--rate` writes per second: what `--event-retention=1d` keeps. Each update records
 * its origin as a request's would (kubectl's manager, a service account's user).
 * PostgreSQL runs in a
 * throwaway cluster; PGlite in a temporary data directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type { KubeObject } from '../src/machinery/meta/object.js';
import type { Database } from '../src/storage/database.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { PGliteDatabase } from '../src/storage/pglite-database.js';
import { PostgresDatabase } from '../src/storage/postgres-database.js';
import { SqlObjectStore } from '../src/storage/sql-object-store.js';
import { pipelineManifest, revisionAnnotation } from './pipeline-manifest.js';
import { startPostgresCluster, type PostgresCluster } from './postgres-cluster.js';

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'pglite' },
    updates: { type: 'string', default: '20000' },
    rate: { type: 'string', default: '10' },
  },
});
const updates = Number(values.updates);
const rate = Number(values.rate);
const objects = 100;
/** What each update records of who made it, as an update through the API does. */
const origin = { operation: 'update', subresource: '', fieldManager: 'kubectl-client-side-apply', user: 'system:serviceaccount:ci:deployer' } as const;

/** managedFields as the API records them: one entry whose fieldsV1 names every field the manifest sets. */
function fieldsV1(value: unknown): Record<string, unknown> {
  if (Array.isArray(value)) return {};
  if (value === null || typeof value !== 'object') return {};
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [`f:${k}`, fieldsV1(v)]));
}

/** A bench Pipeline as the API stores it. */
function stored(name: string, revision: number): KubeObject {
  const manifest = pipelineManifest(name, revision) as KubeObject & { metadata: Record<string, unknown> };
  const { apiVersion: _a, kind: _k, ...fields } = manifest;
  return {
    ...manifest,
    metadata: {
      ...manifest.metadata,
      namespace: 'bench',
      uid: `00000000-0000-4000-8000-${String(revision).padStart(12, '0')}`,
      generation: 1,
      creationTimestamp: '2026-01-01T00:00:00Z',
      managedFields: [
        {
          manager: 'kubectl-client-side-apply',
          operation: 'Update',
          apiVersion: 'cairn.dev/v1',
          time: '2026-01-01T00:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: fieldsV1(fields),
        },
      ],
    },
  };
}

const eventLogBytes = (database: Database) =>
  database.run(async (db) => {
    await sql`VACUUM cairn_events`.execute(db).catch(() => undefined);
    const { rows } = await sql<{ bytes: string }>`SELECT pg_total_relation_size('cairn_events')::text AS bytes`.execute(db);
    return Number(rows[0].bytes);
  });

let cluster: PostgresCluster | undefined;
let dataDir: string | undefined;
let database: Database;
if (values.backend === 'postgres') {
  cluster = await startPostgresCluster();
  database = new PostgresDatabase({ connectionString: await cluster.createDatabase() });
} else {
  dataDir = await mkdtemp(join(tmpdir(), 'cairn-event-log-disk-'));
  database = await PGliteDatabase.open(dataDir);
}
try {
  await migrateToLatest(database);
  const store = await SqlObjectStore.open(database, { objectCacheSize: 0 });
  const pipelines = store.forResource('pipelines.cairn.dev', (o) => ({ 'metadata.name': String(o.metadata?.name ?? '') }));
  for (let i = 0; i < objects; i++) await pipelines.create({ namespace: 'bench', name: `p-${i}` }, stored(`p-${i}`, 0));
  const objectBytes = Buffer.byteLength(JSON.stringify(stored('p-0', 0)));
  const before = await eventLogBytes(database);
  const started = performance.now();
  for (let n = 1; n <= updates; n++) {
    const name = `p-${n % objects}`;
    await pipelines.guaranteedUpdate(
      { namespace: 'bench', name },
      (current) => ({
        ...current,
        metadata: { ...current!.metadata, annotations: { ...current!.metadata.annotations, [revisionAnnotation]: String(n) } },
      }),
      { origin },
    );
  }
  const seconds = (performance.now() - started) / 1000;
  const after = await eventLogBytes(database);
  await store.close();
  const perWrite = (after - before) / updates;
  const perDay = perWrite * rate * 86_400;
  console.log(
    [
      `${database.backend}: ${updates} updates of a ${objectBytes}-byte Pipeline in ${seconds.toFixed(1)} s (${(updates / seconds).toFixed(0)}/s)`,
      `event log ${(before / 2 ** 20).toFixed(1)} MiB -> ${(after / 2 ** 20).toFixed(1)} MiB: ${perWrite.toFixed(0)} bytes per write`,
      `a day of history at ${rate} writes/s: ${(rate * 86_400).toLocaleString('en')} events, ${(perDay / 2 ** 30).toFixed(2)} GiB`,
    ].join('\n'),
  );
} finally {
  await database.close();
  await cluster?.destroy();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}
