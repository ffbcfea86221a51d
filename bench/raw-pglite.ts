/**
 * The PGlite rows' limits: PGlite used directly in one process, with the options Cairn
 * opens it with, on a file-backed data directory. Inserts are one ~1 KB JSONB row per
 * statement (autocommit); selects read one row by primary key.
 */
import { PGlite } from '@electric-sql/pglite';
import { pipelineBody } from './pipeline-manifest.js';

/** An open raw PGlite with its table. */
export interface RawPglite {
  /** Inserts rows one by one for `seconds`; returns rows per second. */
  inserts(seconds: number): Promise<number>;
  /** Selects random rows by key for `seconds`; returns rows per second. */
  selects(seconds: number): Promise<number>;
  close(): Promise<void>;
}

/** Opens PGlite in `dataDir` (a new, empty directory) and creates its table. */
export async function openRawPglite(dataDir: string): Promise<RawPglite> {
  const db = new PGlite(dataDir);
  await db.waitReady;
  await db.exec('CREATE TABLE raw_rows (name text PRIMARY KEY, doc jsonb NOT NULL)');
  let rows = 0;
  return {
    async inserts(seconds) {
      const start = performance.now();
      const end = start + seconds * 1000;
      let done = 0;
      while (performance.now() < end) {
        const name = `raw-${String(rows++).padStart(8, '0')}`;
        await db.query('INSERT INTO raw_rows (name, doc) VALUES ($1, $2::jsonb)', [name, pipelineBody(name)]);
        done++;
      }
      return done / ((performance.now() - start) / 1000);
    },
    async selects(seconds) {
      if (rows === 0) throw new Error('no rows to select: insert first');
      const start = performance.now();
      const end = start + seconds * 1000;
      let done = 0;
      while (performance.now() < end) {
        const name = `raw-${String(Math.floor(Math.random() * rows)).padStart(8, '0')}`;
        const result = await db.query('SELECT doc FROM raw_rows WHERE name = $1', [name]);
        if (result.rows.length !== 1) throw new Error(`raw PGlite: no row ${name}`);
        done++;
      }
      return done / ((performance.now() - start) / 1000);
    },
    close: () => db.close(),
  };
}
