/**
 * Listing 10,000 objects in pages of 500 reads each page by key: a fixed number of
 * queries per page, and never more rows than a page (plus one) from the database.
 * Pages at one resourceVersion come from memory while nothing of the resource changed
 * since, and from the database, at exactly that resourceVersion, once something did.
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

/** A Database whose reads through the query builder (lists, loads; not the watch cache's poller) go through `counter`. */
function counted(inner: Database, counter: QueryCounter): Database {
  return {
    backend: inner.backend,
    run: <T>(work: DatabaseWork<T>) => inner.run((db) => work(db.withPlugin(counter))),
    transaction: <T>(work: TransactionWork<T>, options?: { snapshot?: boolean }) =>
      inner.transaction((trx) => work(options?.snapshot ? trx.withPlugin(counter) : trx), options),
    query: (text, values, name) => inner.query(text, values, name),
    script: (statements) => inner.script(statements),
    listen: (channel, onWake) => inner.listen(channel, onWake),
    notify: (channel, payload) => inner.notify(channel, payload),
    ping: () => inner.ping(),
    connections: () => inner.connections(),
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
    // A bound above the resource's size: its objects may be held in memory.
    store = await SqlObjectStore.open(counted(database, counter), { objectCacheSize: 2 * total });
  }, 120_000);

  afterAll(async () => {
    await store?.close();
    await database?.close();
  });

  const many = () => store.forResource('many.test', (o: KubeObject) => ({ 'metadata.name': String(o.metadata?.name) }));

  /** Lists every page from `first`; `check` sees what each page read from the database. Returns the names listed. */
  async function walk(
    first: { resourceVersion?: string; after?: { namespace: string; name: string } },
    check: (page: number) => void,
    between: (page: number) => Promise<void> = async () => {},
  ): Promise<string[]> {
    const seen: string[] = [];
    let after = first.after;
    let resourceVersion = first.resourceVersion;
    let pages = 0;
    do {
      counter.reset();
      const page = await many().list('ns', { predicate: {}, limit: pageSize, after, resourceVersion, countRemaining: true });
      pages++;
      expect(page.items.length).toBeLessThanOrEqual(pageSize);
      check(pages);
      seen.push(...page.items.map((o) => o.metadata.name));
      // The first page is counted (from the counts kept, not the rows); the next ones carry it on.
      if (pages === 1) expect(page.remainingItemCount).toBe(total - seen.length);
      else expect(page.remainingItemCount).toBeUndefined();
      if (resourceVersion !== undefined) expect(page.resourceVersion).toBe(resourceVersion);
      after = page.continueAfter;
      resourceVersion = page.resourceVersion;
      if (after) await between(pages);
    } while (after);
    expect(pages).toBe(total / pageSize);
    return seen;
  }

  /** A page the database read: at most the newest resourceVersion, then one statement (the page, the history's bounds, a first page's count). */
  const fromDatabase = () => {
    expect(counter.queries).toBeGreaterThanOrEqual(1);
    expect(counter.queries).toBeLessThanOrEqual(2);
    expect(counter.maxRows).toBeLessThanOrEqual(pageSize + 1);
    expect(counter.rows).toBeLessThanOrEqual(pageSize + 4);
  };
  const fromMemory = () => expect(counter.queries).toBe(0);

  const expectEveryObjectOnce = (seen: string[]) => {
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    expect([...seen].sort()).toEqual(seen);
  };

  it('reads every object once, a bounded number of queries and rows per page', async () => {
    // Nothing has read the resource yet: its objects are not in memory, and every exact page is the database's.
    expectEveryObjectOnce(await walk({ resourceVersion: '1' }, fromDatabase));
  }, 120_000);

  it('serves pages from memory while nothing changed, and from the database at the same resourceVersion once something did', async () => {
    await many().list('ns', { predicate: {}, notOlderThan: '0' });
    // Pages 1–3 from memory; then writes; the rest from the database, still at the first page's resourceVersion.
    const seen = await walk(
      {},
      (page) => (page <= 3 ? fromMemory() : fromDatabase()),
      async (page) => {
        if (page !== 3) return;
        await many().guaranteedUpdate({ namespace: 'ns', name: 'obj-09999' }, (o) => ({ ...o!, spec: { changed: true } }));
        await many().delete({ namespace: 'ns', name: 'obj-05000' });
        await many().create({ namespace: 'ns', name: 'obj-07777a' }, { apiVersion: 'test/v1', kind: 'Thing', metadata: { name: 'obj-07777a', uid: 'new' } });
      },
    );
    expectEveryObjectOnce(seen);
    expect(seen).toContain('obj-05000');
    expect(seen).not.toContain('obj-07777a');
  }, 120_000);
});
