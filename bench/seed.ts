/**
 * Seeding a database with Pipelines for the scale measurements: rows as the API writes
 * them (each object its own resourceVersion, its row in `cairn_objects` and its ADDED
 * event in `cairn_events`, the resourceVersion counter moved past them), in batches of
 * thousands per statement instead of one create per request (a million creates through
 * the API take hours; this takes minutes).
 *
 * Every object is a copy of one template Pipeline the API wrote (see seed-command.ts),
 * with its own name, namespace, uid and resourceVersion, and labels and fields chosen so
 * each selector of {@link seededSelectors} matches about 0.1 % of the objects, spread
 * evenly over the namespaces and over key order. Objects are written namespace after
 * namespace in turn (object `i` in namespace `i mod namespaces`), so the table's physical
 * order is creation order, not key order, as on a server that took creates over time.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { pipelines } from '../src/apis/cairn/pipelines.js';
import type { KubeObject } from '../src/machinery/meta/object.js';
import { fieldsOf, storageName } from '../src/registry/resource-storage.js';
import type { Database } from '../src/storage/database.js';
import { eventsChannel } from '../src/storage/sql-object-store.js';
import { encodeJsonb } from '../src/storage/stored-text.js';

/** How many Pipelines, over how many namespaces. */
export interface SeedShape {
  readonly count: number;
  readonly namespaces: number;
}

/** The namespace of the `i`th seeded Pipeline. */
export const seedNamespace = (i: number, shape: SeedShape): string => `seed-${String(i % shape.namespaces).padStart(3, '0')}`;

/** The name of the `i`th seeded Pipeline (unique within its namespace, and across namespaces too). */
export const seedName = (i: number): string => `p-${String(i).padStart(8, '0')}`;

/** Which of 1,000 classes object `i` falls in: a hash (murmur3's finalizer), so classes are spread over names and namespaces alike. */
export function seedClass(i: number): number {
  let h = i ^ (i >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) % 1000;
}

/** Label and field selectors that each match about 1 object in 1,000 (each operator kube has, and each selectable field). */
export const seededSelectors = {
  label: {
    equals: 'shard=s7',
    notEquals: 'track!=stable',
    in: 'shard in (s7,s-none)',
    notIn: 'track notin (stable,beta)',
    exists: 'experiment',
    doesNotExist: '!owner',
  },
  field: {
    runnerClassName: 'spec.runnerClassName=gpu',
    phase: 'status.phase=Failed',
    phaseNotEquals: 'status.phase!=Running',
  },
} as const;

/**
 * The `i`th Pipeline: the template with its own key, uid and resourceVersion, and the
 * labels, runner class and phase that make the selectors of {@link seededSelectors} match.
 */
export function seededPipeline(template: KubeObject, i: number, shape: SeedShape, resourceVersion: bigint): KubeObject {
  const c = seedClass(i);
  const { owner: _owner, experiment: _experiment, ...labels } = template.metadata?.labels ?? {};
  const spec = (template.spec ?? {}) as Record<string, unknown>;
  const status = (template.status ?? {}) as Record<string, unknown>;
  return {
    ...template,
    metadata: {
      ...template.metadata,
      name: seedName(i),
      namespace: seedNamespace(i, shape),
      uid: randomUUID(),
      resourceVersion: resourceVersion.toString(),
      labels: {
        ...labels,
        shard: `s${c}`,
        track: c === 0 ? 'canary' : 'stable',
        ...(c === 1 ? { experiment: 'x' } : {}),
        ...(c === 2 ? {} : { owner: 'team-a' }),
      },
    },
    spec: { ...spec, runnerClassName: c === 3 ? 'gpu' : 'standard' },
    status: { ...status, phase: c === 4 ? 'Failed' : 'Running' },
  };
}

/** One batch: its rows and events in one statement, the counter in the same transaction. */
/** The fields the API writes for a Pipeline. */
const pipelineFields = fieldsOf(pipelines);

const insertBatch = (rows: string, resource: string, through: bigint) => sql`
  WITH r AS MATERIALIZED (
    SELECT * FROM jsonb_to_recordset(${rows}::jsonb) AS r(rv bigint, ns text, n text, uid text, av text, l jsonb, f jsonb, o text)
  ), objects AS (
    INSERT INTO cairn_objects (resource, namespace, name, uid, resource_version, api_version, labels, fields, object)
    SELECT ${resource}, ns, n, uid, rv, av, l, f, o FROM r
  ), counter AS (
    UPDATE cairn_resource_version SET current = ${through.toString()}::bigint WHERE id = 1
  )
  INSERT INTO cairn_events (resource_version, resource, namespace, name, type, labels, fields, object)
  SELECT rv, ${resource}, ns, n, 'ADDED', l, f, o FROM r`;

/** Options of {@link seedPipelines}. */
export interface SeedOptions extends SeedShape {
  /** How many of the `count` objects an earlier seeding wrote (objects `0` to `from - 1`); default 0. */
  readonly from?: number;
  /** The Pipeline every object copies, as the API stored it. */
  readonly template: KubeObject;
  /** Objects per statement; default 2,000. */
  readonly batch?: number;
  /** Told how many objects are written so far, after each batch. */
  readonly onProgress?: (written: number) => void;
}

/** What a seeding wrote. */
export interface Seeded {
  /** The resourceVersion of the first and the last object written. */
  readonly first: bigint;
  readonly last: bigint;
}

/**
 * Writes Pipelines `from` to `count - 1` into a migrated database no server is using,
 * after its newest resourceVersion, then has the planner's statistics gathered (PGlite
 * runs no autovacuum). A seeding with `from` appends to an earlier one of the same shape:
 * a database grows from 10,000 to 100,000 objects, measured at each size.
 */
export async function seedPipelines(database: Database, options: SeedOptions): Promise<Seeded> {
  const resource = storageName(pipelines);
  const batch = options.batch ?? 2000;
  const start = await database.run(async (db) =>
    BigInt((await db.selectFrom('cairn_resource_version').select('current').where('id', '=', 1).executeTakeFirstOrThrow()).current),
  );
  const already = options.from ?? 0;
  for (let from = already; from < options.count; from += batch) {
    const to = Math.min(options.count, from + batch);
    const rows: string[] = [];
    for (let i = from; i < to; i++) {
      const rv = start + BigInt(i - already) + 1n;
      const object = seededPipeline(options.template, i, options, rv);
      const fields = pipelineFields(object);
      const row = {
        rv: rv.toString(),
        ns: object.metadata!.namespace,
        n: object.metadata!.name,
        uid: object.metadata!.uid,
        av: object.apiVersion,
      };
      // The object's text as a string, stored as it is, as the write batch stores it.
      rows.push(
        `${JSON.stringify(row).slice(0, -1)},"l":${encodeJsonb(object.metadata!.labels)},"f":${encodeJsonb(fields)},"o":${JSON.stringify(encodeJsonb(object))}}`,
      );
    }
    await database.transaction((trx) => insertBatch(`[${rows.join(',')}]`, resource, start + BigInt(to - already)).execute(trx));
    options.onProgress?.(to);
  }
  // As a database in its steady state is: autovacuum's pass after a bulk load would otherwise run during the measurements.
  await database.run((db) => sql`VACUUM (ANALYZE)`.execute(db));
  return { first: start + 1n, last: start + BigInt(options.count - already) };
}

/** Options of {@link seedCopies}. */
export interface CopyOptions {
  /** The Pipeline every copy repeats, as its row holds it (what the API wrote). */
  readonly template: KubeObject;
  readonly count: number;
  /** The name of the `i`th copy, in the template's namespace. */
  readonly name: (i: number) => string;
  /** Objects per statement; default 2,000. */
  readonly batch?: number;
  /** Told how many objects are written so far, after each batch. */
  readonly onProgress?: (written: number) => void;
}

/**
 * Writes `count` copies of a stored Pipeline into a database servers are using, as
 * another replica writes: each copy its own name, uid and resourceVersion, row, fields
 * (ownerReferences and all) and ADDED event; each batch takes its resourceVersions with
 * the counter's row locked (a server writing meanwhile takes the ones after), and then
 * wakes the servers (NOTIFY), whose watch caches read the new events from the log.
 */
export async function seedCopies(database: Database, options: CopyOptions): Promise<void> {
  const resource = storageName(pipelines);
  const batch = options.batch ?? 2000;
  const namespace = options.template.metadata!.namespace!;
  for (let from = 0; from < options.count; from += batch) {
    const to = Math.min(options.count, from + batch);
    await database.transaction(async (trx) => {
      const locked = await sql<{ current: string }>`SELECT current::text FROM cairn_resource_version WHERE id = 1 FOR UPDATE`.execute(trx);
      const start = BigInt(locked.rows[0].current);
      const rows: string[] = [];
      for (let i = from; i < to; i++) {
        const rv = start + BigInt(i - from) + 1n;
        const object = {
          ...options.template,
          metadata: { ...options.template.metadata, name: options.name(i), uid: randomUUID(), resourceVersion: rv.toString() },
        };
        const row = { rv: rv.toString(), ns: namespace, n: object.metadata.name, uid: object.metadata.uid, av: object.apiVersion };
        rows.push(
          `${JSON.stringify(row).slice(0, -1)},"l":${encodeJsonb(object.metadata.labels ?? {})},"f":${encodeJsonb(pipelineFields(object))},"o":${JSON.stringify(encodeJsonb(object))}}`,
        );
      }
      await insertBatch(`[${rows.join(',')}]`, resource, start + BigInt(to - from)).execute(trx);
    });
    await database.notify(eventsChannel, 'bench-seed');
    options.onProgress?.(to);
  }
}
