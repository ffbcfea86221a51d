/**
 * Listing 10,000 objects in pages of 500 reads each page by key: a fixed number of
 * queries per page, and never more rows than a page (plus one) from the database.
 */
import {
  sql,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/machinery/meta/object.js';
import type { Database, DatabaseWork, TransactionWork } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { testDatabaseUrl } from '../support/test-database.js';

/** Counts the queries run and the rows they returned. */
class QueryCounter implements KyselyPlugin {
  queries = 0;
  rows = 0;
  maxRows = 0;
  // Subqueries pass through here too; only executed queries reach transformResult.
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.queries++;
    this.rows += args.result.rows.length;
    this.maxRows = Math.max(this.maxRows, args.result.rows.length);
    return args.result;
  }
  reset(): void {
    this.queries = 0;
    this.rows = 0;
    this.maxRows = 0;
  }
}

/** A Database whose snapshot reads (lists; not the watch cache's poller) go through `counter`. */
function counted(inner: Database, counter: QueryCounter): Database {
  return {
    backend: inner.backend,
    run: <T>(work: DatabaseWork<T>) => inner.run(work),
    transaction: <T>(work: TransactionWork<T>, options?: { snapshot?: boolean }) =>
      inner.transaction((trx) => work(options?.snapshot ? trx.withPlugin(counter) : trx), options),
    query: (text, values, name) => inner.query(text, values, name),
    script: (statements) => inner.script(statements),
    listen: (channel, onWake) => inner.listen(channel, onWake),
    notify: (channel, payload) => inner.notify(channel, payload),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}

const total = 10_000;
const pageSize = 500;

describe.each(['pglite', 'postgres'] as const)('paged list of 10,000 objects on %s', (backend) => {
  let database: Database;
  let store: SqlObjectStore;
  const counter = new QueryCounter();

  beforeAll(async () => {
    database = backend === 'pglite' ? await PGliteDatabase.open() : new PostgresDatabase({ connectionString: await testDatabaseUrl() });
    await migrateToLatest(database);
    // Rows written in one statement: this test is about reading.
    await database.run(async (db) => {
      await sql`
        INSERT INTO cairn_objects (resource, namespace, name, uid, resource_version, api_version, labels, fields, object)
        SELECT 'many.test', 'ns', 'obj-' || lpad(i::text, 5, '0'), 'uid-' || i, 1, 'test/v1', '{}'::jsonb, '{}'::jsonb,
               jsonb_build_object('apiVersion', 'test/v1', 'kind', 'Thing',
                 'metadata', jsonb_build_object('name', 'obj-' || lpad(i::text, 5, '0'), 'namespace', 'ns', 'uid', 'uid-' || i, 'resourceVersion', '1'),
                 'spec', jsonb_build_object('payload', repeat('x', 1000)))
        FROM generate_series(1, ${total}) AS i`.execute(db);
      await sql`UPDATE cairn_resource_version SET current = 1`.execute(db);
    });
    store = await SqlObjectStore.open(counted(database, counter));
  }, 120_000);

  afterAll(async () => {
    await store?.close();
    await database?.close();
  });

  it('reads every object once, a bounded number of queries and rows per page', async () => {
    const many = store.forResource('many.test', (o: KubeObject) => ({ 'metadata.name': String(o.metadata?.name) }));
    const seen: string[] = [];
    let after: { namespace: string; name: string } | undefined;
    let resourceVersion: string | undefined;
    let pages = 0;
    do {
      counter.reset();
      const page = await many.list('ns', { predicate: {}, limit: pageSize, after, resourceVersion, countRemaining: true });
      pages++;
      expect(page.items.length).toBeLessThanOrEqual(pageSize);
      // The resourceVersion and compaction mark, the page, and the remaining count.
      expect(counter.queries).toBeLessThanOrEqual(4);
      expect(counter.maxRows).toBeLessThanOrEqual(pageSize + 1);
      expect(counter.rows).toBeLessThanOrEqual(pageSize + 4);
      seen.push(...page.items.map((o) => o.metadata.name));
      if (page.continueAfter) expect(page.remainingItemCount).toBe(total - seen.length);
      after = page.continueAfter;
      resourceVersion = page.resourceVersion;
    } while (after);
    expect(pages).toBe(total / pageSize);
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    expect([...seen].sort()).toEqual(seen);
  }, 120_000);
});
