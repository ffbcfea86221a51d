/**
 * The embedded backend: PGlite (Postgres compiled to WASM) in this process,
 * file-backed under the data directory, or in memory when no directory is given.
 */
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect } from 'kysely';
import { lockDataDir } from './data-dir-lock.js';
import type { ConnectionCounts, Database, DatabaseWork, Row, TransactionWork } from './database.js';
import { PGliteStatements } from './pglite-statements.js';
import type { StorageSchema } from './schema.js';
import { SerialQueue } from './serial-queue.js';
import { decodeJsonb, jsonbOid } from './stored-text.js';

/** A Database on PGlite. */
export class PGliteDatabase implements Database {
  readonly backend = 'pglite' as const;
  readonly #pglite: PGlite;
  readonly #statements: PGliteStatements;
  readonly #db: Kysely<StorageSchema>;
  readonly #queue = new SerialQueue();
  readonly #unlock: () => Promise<void>;

  private constructor(pglite: PGlite, unlock: () => Promise<void>) {
    this.#pglite = pglite;
    this.#statements = new PGliteStatements(pglite);
    this.#db = new Kysely<StorageSchema>({ dialect: new PGliteDialect({ pglite }) });
    this.#unlock = unlock;
  }

  /** Opens (or creates) the database in `dataDir`; in memory when it is undefined. Throws when another process has `dataDir` open. */
  static async open(dataDir?: string): Promise<PGliteDatabase> {
    const options = { parsers: { [jsonbOid]: decodeJsonb } };
    const unlock = dataDir ? await lockDataDir(dataDir) : async () => {};
    try {
      const pglite = dataDir ? new PGlite(dataDir, options) : new PGlite(options);
      await pglite.waitReady;
      return new PGliteDatabase(pglite, unlock);
    } catch (error) {
      await unlock();
      throw error;
    }
  }

  run<T>(work: DatabaseWork<T>): Promise<T> {
    return this.#queue.run(() => work(this.#db));
  }

  transaction<T>(work: TransactionWork<T>): Promise<T> {
    // One connection and a serial queue: every transaction already sees a stable snapshot.
    return this.#queue.run(() => this.#db.transaction().execute(work));
  }

  async query(text: string, values: readonly unknown[], name?: string): Promise<readonly Row[]> {
    if (name !== undefined) return this.#queue.run(() => this.#statements.query(name, text, values));
    const result = await this.#queue.run(() => this.#pglite.query<Row>(text, values as unknown[]));
    return result.rows;
  }

  async script(statements: string): Promise<readonly (readonly Row[])[]> {
    // exec runs several statements as one implicit transaction, as PostgreSQL's simple query protocol does.
    const results = await this.#queue.run(() => this.#pglite.exec(statements));
    return results.map((r) => r.rows as Row[]);
  }

  async listen(): Promise<() => Promise<void>> {
    // Only this process can open the data directory: there is nobody else to hear from.
    return async () => {};
  }

  async notify(): Promise<void> {}

  async ping(): Promise<void> {
    await this.#queue.run(() => this.#pglite.query('SELECT 1'));
  }

  connections(): ConnectionCounts {
    // One connection: in use while anything is queued, and the rest of the queue waits for it.
    const pending = this.#queue.pending;
    return { inUse: pending > 0 ? 1 : 0, idle: pending > 0 ? 0 : 1, waiting: Math.max(0, pending - 1) };
  }

  async close(): Promise<void> {
    await this.#queue.run(() => this.#db.destroy());
    await this.#unlock();
  }
}
