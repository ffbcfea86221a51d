/**
 * A guard on the paged read of the state at a resourceVersion, whose two sides (the
 * live rows, each resolved by its key's first event since, and the keys deleted since)
 * must add up to exactly that state: for random sequences of creates, updates, deletes
 * and re-creates of a few names in two namespaces, every page chain at every
 * resourceVersion the sequence passed through, one to three items a page, of a
 * namespace and of the whole resource, equals the state replayed in memory, and each
 * first page's remainingItemCount is what follows it there. On both backends.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/machinery/meta/object.js';
import type { Database } from '../../src/storage/database.js';
import type { ListRequest, ResourceStorage } from '../../src/storage/interfaces.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { fieldsOf } from './conformance-support.js';

const backends: readonly [string, () => Promise<Database>][] = [
  ['pglite', () => PGliteDatabase.open()],
  ['postgres', async () => new PostgresDatabase({ connectionString: await testDatabaseUrl() })],
];

const namespaces = ['ns', 'x'] as const;
const names = ['a', 'b', 'c', 'd'] as const;

/** One write: `put` creates the key when absent and updates it when present; `delete` deletes it when present. */
const write = fc.record({ namespace: fc.constantFrom(...namespaces), name: fc.constantFrom(...names), verb: fc.constantFrom('put', 'put', 'delete') });

/** A state as the pages and the replay both show it: each object's `namespace/name=version` in key order. */
type State = readonly string[];

describe.each(backends)('paged exact lists equal the replayed state on %s', (_name, open) => {
  let database: Database;
  let store: SqlObjectStore;
  let run = 0;

  beforeAll(async () => {
    database = await open();
    await migrateToLatest(database);
    store = await SqlObjectStore.open(database, {});
  });

  afterAll(async () => {
    await store?.close();
    await database?.close();
  });

  /**
   * Every page at `rv`, `limit` at a time, followed to the end of the continue chain; the
   * first page counts what follows it (a few writes are always few enough to count).
   */
  async function pagedState(things: ResourceStorage, namespace: string | undefined, rv: string, limit: number, total: number): Promise<State> {
    const found: string[] = [];
    let after: ListRequest['after'];
    do {
      const page = await things.list(namespace, { predicate: {}, resourceVersion: rv, limit, after, countRemaining: !after });
      expect(page.items.length).toBeLessThanOrEqual(limit);
      if (!after && page.continueAfter) expect(page.remainingItemCount, 'the first page’s remainingItemCount').toBe(total - page.items.length);
      for (const o of page.items) found.push(`${o.metadata.namespace}/${o.metadata.name}=${(o.spec as { v: number }).v}`);
      after = page.continueAfter;
    } while (after);
    return found;
  }

  it('for every resourceVersion a sequence of writes passed through, and every page size from 1 to 3', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 10 }), async (writes) => {
        const things = store.forResource(`property-${run++}.test`, fieldsOf);
        const live = new Map<string, number>();
        const replayed = (namespace?: string): State =>
          [...live]
            .filter(([k]) => namespace === undefined || k.startsWith(`${namespace}/`))
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([k, v]) => `${k}=${v}`);
        const states: { rv: string; of: (namespace?: string) => State }[] = [];
        const record = async () => {
          const all = replayed();
          const byNamespace = Object.fromEntries(namespaces.map((n) => [n, replayed(n)]));
          states.push({ rv: await store.currentResourceVersion(), of: (n) => (n === undefined ? all : byNamespace[n]) });
        };
        await record();
        for (const [version, { namespace, name, verb }] of writes.entries()) {
          const k = `${namespace}/${name}`;
          const key = { namespace, name };
          if (verb === 'delete') {
            if (!live.has(k)) continue;
            await things.delete(key);
            live.delete(k);
          } else if (live.has(k)) {
            await things.guaranteedUpdate(key, (o) => ({ ...o!, spec: { v: version } }));
            live.set(k, version);
          } else {
            const created: KubeObject = {
              apiVersion: 'test/v1',
              kind: 'Thing',
              metadata: { name, namespace, uid: `uid-${run}-${version}` },
              spec: { v: version },
            };
            await things.create(key, created);
            live.set(k, version);
          }
          await record();
        }
        for (const { rv, of } of states) {
          for (const limit of [1, 2, 3]) {
            for (const namespace of [undefined, ...namespaces]) {
              const state = of(namespace);
              expect(await pagedState(things, namespace, rv, limit, state.length), `at ${rv}, ${limit} a page, in ${namespace ?? 'all namespaces'}`).toEqual(
                state,
              );
            }
          }
        }
      }),
      { numRuns: 25 },
    );
  });
});
