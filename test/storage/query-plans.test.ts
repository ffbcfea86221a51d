/**
 * The plans PostgreSQL (and embedded PGlite) choose for the reads, on 20,000 objects
 * (enough that the planner prefers an index where one serves) with statistics
 * gathered: a GET, a GET at an older resourceVersion, first pages, continued pages of an older snapshot, and selective
 * label and field selectors never scan the object table sequentially, and examine
 * about as many rows as they return, not as many as the table holds; nor does a page of
 * an object's history, by name or by uid, however many revisions and incarnations the
 * name has.
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFieldSelector } from '../../src/machinery/selectors/field-selector.js';
import { parseLabelSelector } from '../../src/machinery/selectors/label-selector.js';
import type { Database } from '../../src/storage/database.js';
import type { SelectionPredicate, StorageKey } from '../../src/storage/interfaces.js';
import { eventsQuery } from '../../src/storage/event-log.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { historyPageQuery, incarnationEndsQuery } from '../../src/storage/object-history.js';
import { readObjectStatement } from '../../src/storage/object-rows.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import type { StorageSchema } from '../../src/storage/schema.js';
import { readObjectAtStatement } from '../../src/storage/snapshot-get.js';
import { snapshotPageStatement } from '../../src/storage/snapshot-list.js';
import { testDatabaseUrl } from '../support/test-database.js';

const total = 20_000;
const resource = 'pipelines.test';

/** One node of an `EXPLAIN (ANALYZE, FORMAT JSON)` plan. */
interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Actual Rows': number;
  readonly 'Actual Loops': number;
  readonly 'Rows Removed by Filter'?: number;
  readonly 'Rows Removed by Index Recheck'?: number;
  readonly Plans?: readonly PlanNode[];
}

/** What a plan did on one table: its scans, and the rows they examined (returned or filtered out). */
interface TableWork {
  readonly scans: string[];
  examined: number;
}

function workOn(plan: PlanNode, table: string, work: TableWork = { scans: [], examined: 0 }): TableWork {
  // A node the executor never ran (a contradiction the planner proved, as namespace=a AND namespace=b) did nothing.
  if (plan['Actual Loops'] === 0) return work;
  if (plan['Relation Name'] === table) {
    work.scans.push(plan['Node Type']);
    work.examined += (plan['Actual Rows'] + (plan['Rows Removed by Filter'] ?? 0) + (plan['Rows Removed by Index Recheck'] ?? 0)) * plan['Actual Loops'];
  }
  for (const child of plan.Plans ?? []) workOn(child, table, work);
  return work;
}

/**
 * Seeds rows as the API writes them (an object row and its ADDED event each), half in
 * one large namespace and half in 20 small ones, with labels and fields of which each
 * selective value matches 1 object in 1,000, spread over the namespaces; then changes a
 * few after a snapshot.
 */
async function seed(db: Kysely<StorageSchema>): Promise<bigint> {
  await sql`
    WITH s AS (
      SELECT i, CASE WHEN i <= ${total / 2} THEN 'big' ELSE 'ns-' || lpad((i % 20)::text, 2, '0') END AS ns, 'p-' || lpad(i::text, 6, '0') AS n, abs(hashtext(i::text)) % 1000 AS c
      FROM generate_series(1, ${total}) AS i
    ), r AS (
      SELECT i, ns, n,
        jsonb_build_object('app', 'web', 'shard', 's' || c, 'track', CASE WHEN c = 0 THEN 'canary' ELSE 'stable' END)
          || CASE WHEN c = 1 THEN '{"experiment":"x"}'::jsonb ELSE '{}' END || CASE WHEN c = 2 THEN '{}' ELSE '{"owner":"a"}'::jsonb END AS l,
        jsonb_build_object('metadata.name', n, 'metadata.namespace', ns,
          'spec.runnerClassName', CASE WHEN c = 3 THEN 'gpu' ELSE 'standard' END, 'status.phase', CASE WHEN c = 4 THEN 'Failed' ELSE 'Running' END)
          || CASE WHEN c = 5 THEN '{"metadata.ownerReferences.uid":["owner-a","owner-b"]}'::jsonb
                  WHEN c = 6 THEN '{"metadata.ownerReferences.uid":["owner-b"]}'::jsonb ELSE '{}' END AS f
      FROM s
    ), o AS (
      INSERT INTO cairn_objects (resource, namespace, name, uid, resource_version, api_version, labels, fields, object)
      SELECT ${resource}, ns, n, 'uid-' || i, i, 'test/v1', l, f,
        jsonb_build_object('apiVersion', 'test/v1', 'kind', 'Thing', 'metadata', jsonb_build_object('name', n, 'namespace', ns, 'labels', l, 'resourceVersion', i::text),
          'spec', jsonb_build_object('payload', repeat('x', 1000)))
      FROM r
    )
    INSERT INTO cairn_events (resource_version, resource, namespace, name, type, labels, fields, object)
    SELECT i, ${resource}, ns, n, 'ADDED', l, f, '{}' FROM r`.execute(db);
  // Changes after the snapshot at `total`: a few MODIFIED events, each with its prior state.
  await sql`
    INSERT INTO cairn_events (resource_version, resource, namespace, name, type, labels, fields, prev_labels, prev_fields, object, prev_object)
    SELECT ${total} + row_number() OVER (ORDER BY resource_version), resource, namespace, name, 'MODIFIED', labels, fields, labels, fields, object, object
    FROM cairn_objects WHERE resource_version % 1000 = 17`.execute(db);
  await sql`UPDATE cairn_objects o SET resource_version = e.resource_version FROM cairn_events e
    WHERE e.type = 'MODIFIED' AND (o.resource, o.namespace, o.name) = (e.resource, e.namespace, e.name)`.execute(db);
  await sql`UPDATE cairn_resource_version SET current = (SELECT max(resource_version) FROM cairn_events)`.execute(db);
  await sql`ANALYZE`.execute(db);
  return BigInt(total);
}

describe.each(['postgres', 'pglite'] as const)('query plans of reads on %s, 20,000 objects', (backend) => {
  let database: Database;
  let older: bigint;
  let current: bigint;

  beforeAll(async () => {
    database = backend === 'postgres' ? new PostgresDatabase({ connectionString: await testDatabaseUrl() }) : await PGliteDatabase.open();
    await migrateToLatest(database);
    older = await database.run(seed);
    current = await database.run(async (db) => BigInt((await db.selectFrom('cairn_resource_version').select('current').executeTakeFirstOrThrow()).current));
  }, 120_000);

  afterAll(async () => {
    await database?.close();
  });

  async function explain(text: string, parameters: readonly unknown[]): Promise<PlanNode> {
    const rows = await database.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, parameters);
    const plan = rows[0]['QUERY PLAN'];
    return (typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan as PlanNode;
  }

  /** The plan of one page: `limit` items of `namespace` (all when undefined) at `rv`, after `after`; a first page counts what follows. */
  async function page(namespace: string | undefined, predicate: SelectionPredicate, rv: bigint, after?: StorageKey): Promise<PlanNode> {
    const compiled = await database.run(async (db) =>
      snapshotPageStatement({ resource, namespace, predicate, resourceVersion: rv, after, limit: 500, countRemaining: true }).compile(db),
    );
    return explain(compiled.sql, compiled.parameters);
  }

  /** Expects no sequential scan of either table, and at most `bound` object rows examined. */
  function expectIndexed(plan: PlanNode, bound: number): void {
    const objects = workOn(plan, 'cairn_objects');
    const events = workOn(plan, 'cairn_events');
    expect(objects.scans, JSON.stringify(plan)).not.toContain('Seq Scan');
    expect(events.scans, JSON.stringify(plan)).not.toContain('Seq Scan');
    expect(objects.examined, JSON.stringify(plan)).toBeLessThanOrEqual(bound);
  }

  it('reads an object by its key from the primary key', async () => {
    expectIndexed(await explain(readObjectStatement, [resource, 'ns-07', 'p-010007']), 1);
  });

  it('reads an object at an older resourceVersion by its key: the first of its events after it, or else its row', async () => {
    const at = async (namespace: string, name: string, rv: bigint, rowRead: boolean) => {
      const plan = await explain(readObjectAtStatement, [resource, namespace, name, rv.toString()]);
      expectIndexed(plan, 1);
      // One event at most: the key's first after the resourceVersion, from the end of its range of the index.
      expect(workOn(plan, 'cairn_events').examined, JSON.stringify(plan)).toBeLessThanOrEqual(1);
      // The row only when no event answered: a read of the past costs one index descent and one heap page, not two of each.
      expect(workOn(plan, 'cairn_objects').scans, JSON.stringify(plan)).toHaveLength(rowRead ? 1 : 0);
    };
    // Changed since (its prior state is on its event), unchanged (its row), and both at the newest state.
    await at('big', 'p-001017', older, false);
    await at('big', 'p-001018', older, true);
    await at('ns-01', 'p-010001', current, true);
  });

  it('reads a page of a resource’s events after a resourceVersion, for a watch from before the watch cache, from their index', async () => {
    const compiled = await database.run(async (db) => eventsQuery(db, older - 500n, 500, resource).compile());
    const plan = await explain(compiled.sql, compiled.parameters);
    const events = workOn(plan, 'cairn_events');
    expect(events.scans, JSON.stringify(plan)).not.toContain('Seq Scan');
    expect(events.examined, JSON.stringify(plan)).toBeLessThanOrEqual(500);
  });

  it('reads a first page, cluster-wide or of a namespace, in key order, stopping at its end', async () => {
    expectIndexed(await page(undefined, {}, current), 501);
    expectIndexed(await page('ns-03', {}, current), 501);
    expectIndexed(await page('big', {}, current), 501);
  });

  it('continues a page at an older resourceVersion from the key it stopped at, with what changed since', async () => {
    // The page's rows, and those changed since (20 in all) that the live side skips.
    expectIndexed(await page(undefined, {}, older, { namespace: 'big', name: 'p-005000' }), 521);
    expectIndexed(await page('big', {}, older, { namespace: 'big', name: 'p-005000' }), 521);
    expectIndexed(await page('ns-11', {}, older, { namespace: 'ns-11', name: 'p-015011' }), 521);
  });

  it('starts a continued page at its key in the primary key, at a cost that does not grow with how far in the key is', async () => {
    const blocks = async (name: string): Promise<number> => {
      const compiled = await database.run(async (db) =>
        snapshotPageStatement({
          resource,
          namespace: undefined,
          predicate: {},
          resourceVersion: current,
          after: { namespace: 'big', name },
          limit: 500,
        }).compile(db),
      );
      const rows = await database.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${compiled.sql}`, compiled.parameters);
      const plan = rows[0]['QUERY PLAN'];
      const top = (typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan as Record<string, number>;
      return top['Shared Hit Blocks'] + top['Shared Read Blocks'];
    };
    // Walking the resource from its start up to the key (a comparison of all three key columns) reads some 50 more index pages here.
    const near = await blocks('p-000010');
    const far = await blocks('p-009000');
    expect(far).toBeLessThanOrEqual(near + 10);
  });

  it.each(['shard=s7', 'shard in (s7,s8)', 'experiment', 'shard=s7,track=stable', 'shard=s7,!experiment', 'shard in (s7,s9),track!=canary'])(
    'serves the selective label selector %s from the labels index',
    async (selector) => {
      const labelSelector = parseLabelSelector(selector);
      // 0.1 % of 20,000 is about 20 matches (twice that for two values), and the index's recheck reads about as many.
      expectIndexed(await page(undefined, { labelSelector }, current), 200);
      expectIndexed(await page('big', { labelSelector }, current), 200);
      // A namespace of 500 objects may as well be read whole, in key order.
      expectIndexed(await page('ns-05', { labelSelector }, current), 500);
    },
  );

  it.each([
    'spec.runnerClassName=gpu',
    'status.phase=Failed',
    'metadata.name=p-012345',
    'metadata.namespace=ns-09',
    // The garbage collector's queries: an owner's dependents, and every object with an owner (migration 0006).
    'metadata.ownerReferences.uid=owner-a',
    'metadata.ownerReferences.uid=owner-b',
    'metadata.ownerReferences.uid!=',
  ])('serves the field selector %s from an index', async (selector) => {
    const fieldSelector = parseFieldSelector(selector);
    // A namespace's objects stop at the page's end.
    expectIndexed(await page(undefined, { fieldSelector }, current), selector.startsWith('metadata.namespace') ? 501 : 200);
    expectIndexed(await page('big', { fieldSelector }, current), 200);
  });

  describe('a page at an older resourceVersion, with many writes of other keys since', () => {
    // In the page's range (after big/p-005000), ten keys deleted since; elsewhere, every object outside `big` updated and 2,000 deleted.
    const deletedInPage = Array.from({ length: 10 }, (_, i) => `p-00${5101 + 10 * i}`);

    beforeAll(async () => {
      // Past the history's events below (current + 1 … current + 1,000).
      const since = current + 2000n;
      await database.run(async (db) => {
        await sql`
          INSERT INTO cairn_events (resource_version, resource, namespace, name, type, labels, fields, prev_labels, prev_fields, object, prev_object)
          SELECT ${since} + row_number() OVER (ORDER BY namespace, name), resource, namespace, name, 'MODIFIED', labels, fields, labels, fields, object, object
          FROM cairn_objects WHERE resource = ${resource} AND namespace <> 'big'`.execute(db);
        await sql`UPDATE cairn_objects o SET resource_version = e.resource_version FROM cairn_events e
          WHERE e.resource_version > ${since} AND (o.resource, o.namespace, o.name) = (e.resource, e.namespace, e.name)`.execute(db);
        await sql`
          WITH gone AS (
            DELETE FROM cairn_objects WHERE resource = ${resource} AND namespace = 'big' AND (name IN (${sql.join(deletedInPage)}) OR name BETWEEN 'p-008001' AND 'p-010000')
            RETURNING *
          )
          INSERT INTO cairn_events (resource_version, resource, namespace, name, type, labels, fields, prev_labels, prev_fields, object, prev_object)
          SELECT ${since} + 100000 + row_number() OVER (ORDER BY name), resource, namespace, name, 'DELETED', labels, fields, labels, fields, object, object FROM gone`.execute(
          db,
        );
        await sql`UPDATE cairn_resource_version SET current = (SELECT max(resource_version) FROM cairn_events)`.execute(db);
        await sql`ANALYZE`.execute(db);
      });
    });

    it('reads each side in the page’s range of keys alone: the live rows, one event seek for each changed since, and the deletes since', async () => {
      for (const namespace of [undefined, 'big']) {
        const plan = await page(namespace, {}, older, { namespace: 'big', name: 'p-005000' });
        // 501 live rows (ten of the page's keys are gone) and the ten deleted keys' probes, which find no row.
        expectIndexed(plan, 521);
        // One event for p-005017 (changed since); for each deleted key its DELETED index entry and its first event since; and
        // the DELETED entry past the live side's last key, where the walk stops (not the 2,000 deletes after it).
        expect(workOn(plan, 'cairn_events').examined, JSON.stringify(plan)).toBeLessThanOrEqual(25);
      }
    });

    it('counts what follows a first page while few events are newer, and leaves the count out past 1,000 of them', async () => {
      const total = async (rv: bigint) => {
        const rows = await database.run(
          async (db) =>
            (await snapshotPageStatement({ resource, namespace: undefined, predicate: {}, resourceVersion: rv, limit: 500, countRemaining: true }).execute(db))
              .rows,
        );
        return rows[0].total;
      };
      const newest = await database.run(async (db) =>
        BigInt((await db.selectFrom('cairn_resource_version').select('current').executeTakeFirstOrThrow()).current),
      );
      const [{ live }] = await database.query(`SELECT count(*)::text AS live FROM cairn_objects WHERE resource = $1`, [resource]);
      expect(await total(newest)).toBe(live);
      // 20 + 10,000 + 2,010 events since `older`.
      expect(await total(older)).toBeNull();
    });

    it('estimates a counted first page at a cost that does not grow with the events since its resourceVersion', async () => {
      // PostgreSQL compiles a statement with JIT past jit_above_cost and optimizes it past jit_optimize_above_cost, by its estimate:
      // a count whose estimate followed the events since R (a branch that does not even run past the bound) cost a first page
      // 2 s of JIT at 300,000 objects × 10 revisions.
      const cost = async (rv: bigint) => {
        const compiled = await database.run(async (db) =>
          snapshotPageStatement({ resource, namespace: undefined, predicate: {}, resourceVersion: rv, limit: 500, countRemaining: true }).compile(db),
        );
        const rows = await database.query(`EXPLAIN (FORMAT JSON) ${compiled.sql}`, compiled.parameters);
        const plan = rows[0]['QUERY PLAN'];
        return ((typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan as { 'Total Cost': number })['Total Cost'];
      };
      // 12,030 events since `older`, 10,000 more since 10,000 before it: the count's read is estimated at its bound either way.
      expect((await cost(older - 10_000n)) - (await cost(older))).toBeLessThan(500);
    });
  });

  describe('an object’s history', () => {
    const key = { namespace: 'big', name: 'hist' };
    const incarnations = 50;
    const revisions = 20;

    // A name created, changed 18 times and deleted 49 times over, and created once more: 1,000 events among 20,000 others.
    beforeAll(async () => {
      await database.run(async (db) => {
        await sql`
          INSERT INTO cairn_events (resource_version, resource, namespace, name, type, labels, fields, object, uid)
          SELECT ${current} + i, ${resource}, ${key.namespace}, ${key.name},
            CASE WHEN i % ${revisions} = 1 THEN 'ADDED' WHEN i % ${revisions} = 0 AND i < ${incarnations * revisions} THEN 'DELETED' ELSE 'MODIFIED' END,
            '{}', '{}', '{}', 'hist-' || ((i - 1) / ${revisions})
          FROM generate_series(1, ${incarnations * revisions}) AS i`.execute(db);
        await sql`INSERT INTO cairn_objects (resource, namespace, name, uid, resource_version, api_version, labels, fields, object)
          VALUES (${resource}, ${key.namespace}, ${key.name}, ${`hist-${incarnations - 1}`}, ${current + BigInt(incarnations * revisions)}, 'test/v1', '{}', '{}', '{}')`.execute(
          db,
        );
        await sql`ANALYZE cairn_events`.execute(db);
      });
    });

    /** The plan of a history page, and what its incarnation's lookup examined. */
    async function historyPage(limit: number, before?: bigint, uid?: string): Promise<{ page: PlanNode; incarnation?: PlanNode }> {
      const request = { limit, ...(before !== undefined ? { before: before.toString() } : {}), ...(uid !== undefined ? { uid } : {}) };
      let bounds = {};
      let incarnation: PlanNode | undefined;
      if (uid !== undefined) {
        const ends = await database.run(async (db) => {
          const query = incarnationEndsQuery(db, resource, key, uid);
          return { compiled: query.compile(), rows: await query.execute() };
        });
        incarnation = await explain(ends.compiled.sql, ends.compiled.parameters);
        bounds = {
          from: ends.rows.find((r) => r.type === 'ADDED')?.resource_version,
          through: ends.rows.find((r) => r.type === 'DELETED')?.resource_version,
        };
      }
      const compiled = await database.run(async (db) => historyPageQuery(db, resource, key, request, bounds).compile());
      return { page: await explain(compiled.sql, compiled.parameters), incarnation };
    }

    function expectEvents(plan: PlanNode, bound: number): void {
      const events = workOn(plan, 'cairn_events');
      expect(events.scans, JSON.stringify(plan)).not.toContain('Seq Scan');
      expect(events.examined, JSON.stringify(plan)).toBeLessThanOrEqual(bound);
    }

    it('reads a page of a name’s revisions, first or continued, from the key’s index range, limit + 1 of them', async () => {
      expectEvents((await historyPage(100)).page, 101);
      expectEvents((await historyPage(100, current + 500n)).page, 101);
    });

    it('reads a page of one incarnation by uid within its ADDED and DELETED events, reading no other incarnation’s', async () => {
      // The tenth incarnation of fifty: its events are current + 201 … current + 220.
      const first = await historyPage(5, undefined, 'hist-10');
      expectEvents(first.incarnation!, 2);
      expectEvents(first.page, 6);
      // Its last page, with fewer events left than the limit, stops at its ADDED event rather than walking the ten incarnations before it.
      expectEvents((await historyPage(5, current + 203n, 'hist-10')).page, 2);
      // The live one, and a uid the name never had.
      expectEvents((await historyPage(5, undefined, `hist-${incarnations - 1}`)).page, 6);
      expectEvents((await historyPage(5, undefined, 'hist-none')).incarnation!, 0);
    });
  });
});
