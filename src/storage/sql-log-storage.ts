/**
 * The logs of one resource's objects in the log line table: appends checked against
 * the object and written under its row lock, each keeping its log under the byte cap,
 * reads by uid, and followers woken in-process and across replicas.
 */
import type { StoredObject } from '../machinery/meta/object.js';
import type { CoalescedNotify } from './coalesced-notify.js';
import type { Database, DatabaseWork } from './database.js';
import { lockedLogAppend, logAppendStatement, readLogLines, readTailStart } from './log-lines.js';
import type { LogWakeups } from './log-wakeups.js';
import type { LogFollower, LogLine, LogRead, LogStorage, StorageKey } from './interfaces.js';
import { classifyDatabaseError } from './storage-error.js';

/** What a SqlLogStorage is made of. */
export interface SqlLogStorageOptions {
  readonly database: Database;
  /** The resource whose objects' logs these are (`pipelines.cairn.dev`): their rows' first key column. */
  readonly resource: string;
  /** Reads the object at `key` as its row holds it now, decoded; throws `KeyNotFound`. */
  readonly readCurrent: (key: StorageKey) => Promise<StoredObject>;
  readonly wakeups: LogWakeups;
  /** Wakes the other replicas' followers. */
  readonly notify: CoalescedNotify;
  /** The most bytes one object's log keeps (its oldest lines go first); 0 or undefined: no cap. */
  readonly maxBytes?: number;
}

/** How many objects the appends remember, the ones last appended to: some 1.5 MiB of Pipelines. */
const rememberedObjects = 1000;

/** LogStorage on the `cairn_log_lines` table. */
export class SqlLogStorage implements LogStorage {
  readonly #o: SqlLogStorageOptions;
  /** By namespace and name, the object each of the last appends wrote under, as read. */
  readonly #recent = new Map<string, StoredObject>();

  constructor(options: SqlLogStorageOptions) {
    this.#o = options;
  }

  async append(key: StorageKey, lines: readonly string[], streamOf: (current: StoredObject) => string): Promise<void> {
    const uid = await this.#run(() => this.#append(key, lines, streamOf));
    if (uid === undefined) return;
    this.#o.wakeups.wake(uid);
    this.#o.notify.wake();
  }

  /**
   * The object read and its stream checked, then one call that locks its row, still at
   * the version read (read again otherwise), and appends, removing the lines over the cap
   * in the same transaction (they never outlive it, and a failure keeps both). On PGlite,
   * whose one connection runs each statement alone, it is one prepared statement;
   * elsewhere the row lock is taken by a statement of its own first, in the same round
   * trip, so the append sees every append it waited for.
   *
   * The object an append wrote under is remembered: a runner's next append to the same
   * log checks its stream against it and goes straight to the statement, whose version
   * check finds out when it changed (then it is read). An append of no lines writes
   * nothing and checks against the object read.
   */
  async #append(key: StorageKey, lines: readonly string[], streamOf: (current: StoredObject) => string): Promise<string | undefined> {
    if (lines.length === 0) {
      streamOf(await this.#o.readCurrent(key));
      return undefined;
    }
    const id = `${key.namespace}/${key.name}`;
    const remembered = this.#recent.get(id);
    this.#recent.delete(id);
    for (let cached = remembered; ; cached = undefined) {
      const current = cached ?? (await this.#o.readCurrent(key));
      let stream: string;
      try {
        stream = streamOf(current);
      } catch (error) {
        // A stream an older object refuses may be one the current object has.
        if (cached) continue;
        throw error;
      }
      const uid = await this.#write(key, current, stream, lines);
      if (uid === undefined) continue;
      this.#recent.set(id, current);
      // The least recently appended to goes first.
      if (this.#recent.size > rememberedObjects) this.#recent.delete(this.#recent.keys().next().value!);
      return uid;
    }
  }

  /** Appends `lines` to the log of `current` if its row is still at its resourceVersion; returns its uid, or undefined when it is not. */
  async #write(key: StorageKey, current: StoredObject, stream: string, lines: readonly string[]): Promise<string | undefined> {
    const { database } = this.#o;
    const target = { object: { resource: this.#o.resource, ...key }, resourceVersion: String(current.metadata.resourceVersion) };
    const statement = logAppendStatement(target, stream, lines, this.#o.maxBytes ?? 0);
    const [row] =
      database.backend === 'pglite'
        ? await database.query(statement.text, statement.values, 'cairn-append-log')
        : ((await database.script(lockedLogAppend(statement))).at(-1) ?? []);
    return row?.uid as string | undefined;
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
