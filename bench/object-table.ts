/**
 * Direct SQL on a stopped server's database, for what the API would take too long to
 * do or cannot show: seeding the LIST rows' objects, and the LIST row's limit (the same
 * rows read by one query and JSON.stringify'd).
 *
 * This is the one place the bench knows Cairn's schema: the `cairn_objects` table and
 * its `resource`, `namespace`, `name`, `uid`, `object` and `fields` columns. Any other
 * column is copied from the template unchanged.
 */
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { pgliteDirectory } from '../src/server/open-database.js';

/** What both pg and PGlite offer. */
interface Sql {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

/** A connection to a Cairn database while no server uses it. */
export interface ObjectTable {
  /**
   * Copies the object `namespace/name` `count` times into `targetNamespace`, named
   * `prefix` and a 7-digit number, each with its own uid, in one transaction. The copies
   * keep the template's resourceVersion: as if they were all written at once, which no
   * LIST can tell apart, and no event is logged for them (no watch is affected).
   */
  cloneObject(namespace: string, name: string, targetNamespace: string, prefix: string, count: number): Promise<void>;
  /** Reads the objects of `namespace` in name order with one query and stringifies them as a list; returns ms and bytes. */
  queryAndStringify(namespace: string): Promise<{ ms: number; bytes: number; count: number }>;
  close(): Promise<void>;
}

/** Opens the database of a stopped server: PostgreSQL at `databaseUrl`, else the PGlite under `dataDir`. */
export async function openObjectTable(location: { dataDir: string; databaseUrl?: string }): Promise<ObjectTable> {
  if (location.databaseUrl !== undefined) {
    const client = new pg.Client({ connectionString: location.databaseUrl });
    await client.connect();
    return objectTable(client, () => client.end());
  }
  const db = new PGlite(pgliteDirectory(location.dataDir));
  await db.waitReady;
  return objectTable(db, () => db.close());
}

function objectTable(sql: Sql, close: () => Promise<void>): ObjectTable {
  return {
    async cloneObject(namespace, name, targetNamespace, prefix, count) {
      await sql.query('BEGIN');
      try {
        await sql.query('CREATE TEMP TABLE bench_seed ON COMMIT DROP AS SELECT o.*, 0::bigint AS bench_n FROM cairn_objects o WITH NO DATA');
        await sql.query('INSERT INTO bench_seed SELECT o.*, g FROM cairn_objects o, generate_series(1, $3::int) g WHERE o.namespace = $1 AND o.name = $2', [
          namespace,
          name,
          count,
        ]);
        await sql.query("UPDATE bench_seed SET namespace = $1, name = $2 || lpad(bench_n::text, 7, '0'), uid = gen_random_uuid()::text", [
          targetNamespace,
          prefix,
        ]);
        await sql.query(`UPDATE bench_seed SET
          object = jsonb_set(jsonb_set(jsonb_set(object::jsonb, '{metadata,name}', to_jsonb(name)), '{metadata,namespace}', to_jsonb(namespace)), '{metadata,uid}', to_jsonb(uid))::text,
          fields = fields || jsonb_build_object('metadata.name', name, 'metadata.namespace', namespace)`);
        await sql.query('ALTER TABLE bench_seed DROP COLUMN bench_n');
        await sql.query('INSERT INTO cairn_objects SELECT * FROM bench_seed');
        await sql.query('COMMIT');
      } catch (error) {
        await sql.query('ROLLBACK');
        throw error;
      }
    },
    async queryAndStringify(namespace) {
      const start = performance.now();
      // The object column holds each object's JSON text (migration 0007).
      const { rows } = await sql.query<{ object: string }>('SELECT object FROM cairn_objects WHERE namespace = $1 ORDER BY resource, name', [namespace]);
      const text = JSON.stringify({ apiVersion: 'cairn.dev/v1', kind: 'PipelineList', metadata: {}, items: rows.map((r) => JSON.parse(r.object) as unknown) });
      return { ms: performance.now() - start, bytes: Buffer.byteLength(text), count: rows.length };
    },
    close,
  };
}
