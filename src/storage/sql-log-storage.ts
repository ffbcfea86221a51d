/**
 * The logs of one resource's objects in the log line table: appends under the
 * object's row lock, each keeping its log under the byte cap, reads by uid, and
 * followers woken in-process and across replicas.
 */
import type { Transaction } from 'kysely';
import type { StoredObject } from '../machinery/meta/object.js';
import type { CoalescedNotify } from './coalesced-notify.js';
import type { Database, DatabaseWork } from './database.js';
import { appendLogLines, readLogLines, readTailStart } from './log-lines.js';
import type { LogWakeups } from './log-wakeups.js';
import type { LogFollower, LogLine, LogRead, LogStorage, StorageKey } from './interfaces.js';
import type { StorageSchema } from './schema.js';
import { classifyDatabaseError } from './storage-error.js';

/** What a SqlLogStorage is made of. */
export interface SqlLogStorageOptions {
  readonly database: Database;
  /** Reads the object at `key` and locks its row until the transaction ends; throws `KeyNotFound`. */
  readonly lockObject: (trx: Transaction<StorageSchema>, key: StorageKey) => Promise<StoredObject>;
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
    let uid: string;
    try {
      // The row lock orders one object's appends by seq and keeps its deletion out until they commit.
      uid = await this.#o.database.transaction(async (trx) => {
        const current = await this.#o.lockObject(trx, key);
        const uid = String(current.metadata.uid);
        const stream = streamOf(current);
        if (lines.length === 0) return uid;
        // In the append's transaction: the lines over the cap never outlive it, and a failure keeps both.
        await appendLogLines(trx, uid, stream, lines, this.#o.maxBytes ?? 0);
        return uid;
      });
    } catch (error) {
      throw classifyDatabaseError(error);
    }
    if (lines.length === 0) return;
    this.#o.wakeups.wake(uid);
    this.#o.notify.wake();
  }

  read(uid: string, request: LogRead): Promise<readonly LogLine[]> {
    return this.#run((db) => readLogLines(db, uid, request));
  }

  tailStart(uid: string, count: number, stream?: string): Promise<bigint> {
    return this.#run((db) => readTailStart(db, uid, count, stream));
  }

  follow(uid: string): LogFollower {
    return this.#o.wakeups.follow(uid);
  }

  async #run<T>(work: DatabaseWork<T>): Promise<T> {
    try {
      return await this.#o.database.run(work);
    } catch (error) {
      throw classifyDatabaseError(error);
    }
  }
}
