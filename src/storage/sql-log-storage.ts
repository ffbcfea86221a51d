/**
 * The logs of one resource's objects in the log line table: appends under the
 * object's row lock, each keeping its log under the byte cap, reads by uid, and
 * followers woken in-process and across replicas.
 */
import { CompiledQuery, type Transaction } from 'kysely';
import type { StoredObject } from '../machinery/meta/object.js';
import type { CoalescedNotify } from './coalesced-notify.js';
import type { Database, DatabaseWork } from './database.js';
import { logAppendStatement, readLogLines, readTailStart, type LogAppendStatement } from './log-lines.js';
import type { LogWakeups } from './log-wakeups.js';
import type { LogFollower, LogLine, LogRead, LogStorage, StorageKey } from './interfaces.js';
import type { StorageSchema } from './schema.js';
import { classifyDatabaseError } from './storage-error.js';

/** What a SqlLogStorage is made of. */
export interface SqlLogStorageOptions {
  readonly database: Database;
  /** The resource whose objects' logs these are (`pipelines.cairn.dev`): their rows' first key column. */
  readonly resource: string;
  /** Reads the object at `key` as its row holds it now, decoded; throws `KeyNotFound`. */
  readonly readCurrent: (key: StorageKey) => Promise<StoredObject>;
  /** Reads the object at `key`, decoded, and locks its row until the transaction ends; throws `KeyNotFound`. */
  readonly lockCurrent: (trx: Transaction<StorageSchema>, key: StorageKey) => Promise<StoredObject>;
  readonly wakeups: LogWakeups;
  /** Wakes the other replicas' followers. */
  readonly notify: CoalescedNotify;
  /** The most bytes one object's log keeps (its oldest lines go first); 0 or undefined: no cap. */
  readonly maxBytes?: number;
}

/** LogStorage on the `cairn_log_lines` table. */
export class SqlLogStorage implements LogStorage {
  readonly #o: SqlLogStorageOptions;

  constructor(options: SqlLogStorageOptions) {
    this.#o = options;
  }

  async append(key: StorageKey, lines: readonly string[], streamOf: (current: StoredObject) => string): Promise<void> {
    const uid = await this.#run(() =>
      this.#o.database.backend === 'pglite' ? this.#appendAlone(key, lines, streamOf) : this.#appendLocked(key, lines, streamOf),
    );
    if (uid === undefined) return;
    this.#o.wakeups.wake(uid);
    this.#o.notify.wake();
  }

  /**
   * Where transactions run side by side: the object's row locked and read in a statement
   * of its own, so the append's statement (the lines over the cap removed in it: they
   * never outlive it, and a failure keeps both) sees every append that committed before.
   */
  #appendLocked(key: StorageKey, lines: readonly string[], streamOf: (current: StoredObject) => string): Promise<string | undefined> {
    return this.#o.database.transaction(async (trx) => {
      const current = await this.#o.lockCurrent(trx, key);
      const statement = this.#statement(key, current, streamOf(current), lines);
      if (!statement) return undefined;
      const { rows } = await trx.executeQuery<{ uid: string }>(CompiledQuery.raw(statement.text, [...statement.values]));
      return rows[0]?.uid;
    });
  }

  /**
   * On PGlite, whose one connection runs every statement alone, no append can commit
   * between the statement's snapshot and its lock: the object read, its stream checked,
   * and one prepared statement that locks the row, still at the version read, and appends
   * (two calls in place of a transaction's four, and no statement planned again). An
   * object changed in between is read again.
   */
  async #appendAlone(key: StorageKey, lines: readonly string[], streamOf: (current: StoredObject) => string): Promise<string | undefined> {
    for (;;) {
      const current = await this.#o.readCurrent(key);
      const statement = this.#statement(key, current, streamOf(current), lines);
      if (!statement) return undefined;
      const [row] = await this.#o.database.query(statement.text, statement.values, 'cairn-append-log');
      if (row) return row.uid as string;
    }
  }

  /** The append of `lines` to the log of `current`, at its resourceVersion; none when there are no lines. */
  #statement(key: StorageKey, current: StoredObject, stream: string, lines: readonly string[]): LogAppendStatement | undefined {
    if (lines.length === 0) return undefined;
    const target = { object: { resource: this.#o.resource, ...key }, resourceVersion: String(current.metadata.resourceVersion) };
    return logAppendStatement(target, stream, lines, this.#o.maxBytes ?? 0);
  }

  read(uid: string, request: LogRead): Promise<readonly LogLine[]> {
    return this.#read((db) => readLogLines(db, uid, request));
  }

  tailStart(uid: string, count: number, stream?: string): Promise<bigint> {
    return this.#read((db) => readTailStart(db, uid, count, stream));
  }

  follow(uid: string): LogFollower {
    return this.#o.wakeups.follow(uid);
  }

  #read<T>(work: DatabaseWork<T>): Promise<T> {
    return this.#run(() => this.#o.database.run(work));
  }

  async #run<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw classifyDatabaseError(error);
    }
  }
}
