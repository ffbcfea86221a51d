/**
 * Storage of one resource in the object table, each write recorded in the event
 * log in the same transaction, and the logs of its objects. Writes are optimistic:
 * what computes or checks the new state runs between a plain read and a short
 * transaction that writes only if the object is still as read.
 */
import type { Transaction } from 'kysely';
import { deepCopy, jsonEqual, type KubeObject, type StoredObject } from '../machinery/meta/object.js';
import type { CoalescedNotify } from './coalesced-notify.js';
import type { Database } from './database.js';
import { appendEvent, nextResourceVersion, readCompactedResourceVersion, readCurrentResourceVersion } from './event-log.js';
import { deleteLogLines } from './log-lines.js';
import type { LogWakeups } from './log-wakeups.js';
import { countStaleRows, deleteObject, insertObject, lockObject, readObject, readStaleKeys, updateObject, type ObjectRowKey } from './object-rows.js';
import type {
  DeletePrecondition,
  FieldsOf,
  GuaranteedUpdateOptions,
  ListRequest,
  ListResult,
  LogStorage,
  ResourceStorage,
  SelectionPredicate,
  StorageKey,
  StorageVersioning,
  StorageWatcher,
  StorageWatchOptions,
  TryUpdate,
  UpdateResult,
} from './interfaces.js';
import type { StorageSchema, StringMap } from './schema.js';
import { readSnapshotPage } from './snapshot-list.js';
import { classifyDatabaseError, keyExists, keyNotFound, StorageError, tooLarge, tooOld } from './storage-error.js';
import type { WatchCache } from './watch-cache.js';
import { EventLogWatcher } from './event-log-watcher.js';
import { SqlLogStorage } from './sql-log-storage.js';
import { VersionDecoder } from './version-decoder.js';

/** What a SqlResourceStorage is made of. */
export interface SqlResourceStorageOptions {
  readonly resource: string;
  readonly fieldsOf: FieldsOf;
  /** The storage version rows are read in; rows are read as written when undefined. */
  readonly versioning?: StorageVersioning;
  readonly database: Database;
  readonly cache: WatchCache;
  /** Called after every committed write. */
  readonly afterCommit: () => void;
  /** The followers of logs in this process. */
  readonly logWakeups: LogWakeups;
  /** Wakes the other replicas' log followers after an append. */
  readonly logNotify: CoalescedNotify;
}

const labelsOf = (object: KubeObject): StringMap => object.metadata?.labels ?? {};

function withResourceVersion(object: KubeObject, rv: bigint): StoredObject {
  const copy = deepCopy(object) as StoredObject;
  copy.metadata = { ...copy.metadata, resourceVersion: rv.toString() };
  return copy;
}

function withoutResourceVersion(object: KubeObject): KubeObject {
  const { resourceVersion: _ignored, ...metadata } = object.metadata ?? {};
  return { ...object, metadata };
}

/** ResourceStorage on SQL tables. */
export class SqlResourceStorage implements ResourceStorage {
  readonly #o: SqlResourceStorageOptions;
  readonly #decoder: VersionDecoder;
  readonly #watchers = new Set<EventLogWatcher>();
  readonly logs: LogStorage;

  constructor(options: SqlResourceStorageOptions) {
    this.#o = options;
    this.#decoder = new VersionDecoder(options.versioning);
    this.logs = new SqlLogStorage({
      database: options.database,
      lockObject: (trx, key) => this.#lockCurrent(trx, key),
      wakeups: options.logWakeups,
      notify: options.logNotify,
    });
  }

  #describe(key: StorageKey): string {
    return `/${this.#o.resource}/${key.namespace}/${key.name}`;
  }

  /** Runs a write transaction; wakes the watch machinery once it has committed. */
  async #write<T>(work: (trx: Transaction<StorageSchema>) => Promise<{ result: T; wrote: boolean }>): Promise<T> {
    let outcome: { result: T; wrote: boolean };
    try {
      outcome = await this.#o.database.transaction(work);
    } catch (error) {
      throw classifyDatabaseError(error);
    }
    if (outcome.wrote) this.#o.afterCommit();
    return outcome.result;
  }

  /** The row of `key` in this resource. */
  #at(key: StorageKey): ObjectRowKey {
    return { resource: this.#o.resource, namespace: key.namespace, name: key.name };
  }

  /** Locks the object's row for a log append, which must not interleave with its deletion. */
  async #lockCurrent(trx: Transaction<StorageSchema>, key: StorageKey): Promise<StoredObject> {
    const current = await lockObject(trx, this.#at(key));
    if (!current) throw keyNotFound(this.#describe(key));
    return this.#decoder.decode(current);
  }

  /** The current object as its row holds it (maybe in an older version), or undefined: one query, no transaction, no lock. */
  async #readRow(key: StorageKey): Promise<StoredObject | undefined> {
    try {
      return await this.#o.database.run((db) => readObject(db, this.#at(key)));
    } catch (error) {
      throw classifyDatabaseError(error);
    }
  }

  create(key: StorageKey, object: KubeObject): Promise<StoredObject> {
    return this.#write(async (trx) => {
      const rv = await nextResourceVersion(trx);
      const stored = withResourceVersion(object, rv);
      const labels = labelsOf(stored);
      const fields = this.#o.fieldsOf(stored);
      // Throwing rolls the counter back too: a failed create leaves no gap.
      if (!(await insertObject(trx, this.#at(key), { rv, labels, fields, object: stored }))) throw keyExists(this.#describe(key));
      await appendEvent(trx, { rv, resource: this.#o.resource, ...key, type: 'ADDED', labels, fields, object: stored });
      return { result: stored, wrote: true };
    });
  }

  async get(key: StorageKey): Promise<StoredObject> {
    const row = await this.#readRow(key);
    if (!row) throw keyNotFound(this.#describe(key));
    return this.#decoder.decode(row);
  }

  async guaranteedUpdate(key: StorageKey, tryUpdate: TryUpdate, options: GuaranteedUpdateOptions = {}): Promise<UpdateResult> {
    // As etcd3's GuaranteedUpdate: read, compute with nothing held (tryUpdate may wait on a
    // webhook), then write only if the object is still as read; otherwise compute again from
    // the newer object, for as long as it takes.
    let row = await this.#readRow(key);
    for (;;) {
      if (!row && !options.ignoreNotFound) throw keyNotFound(this.#describe(key));
      const current = row && this.#decoder.decode(row);
      const next = await tryUpdate(current && deepCopy(current));
      const written = row && current ? await this.#replace(key, current, next, this.#decoder.isStale(row)) : await this.#createIfAbsent(key, next);
      if (written) return written;
      row = await this.#readRow(key);
    }
  }

  /** Creates `next` for an update that found no object; undefined when another write created it first. */
  async #createIfAbsent(key: StorageKey, next: KubeObject): Promise<UpdateResult | undefined> {
    try {
      return { object: await this.create(key, next), changed: true, created: true };
    } catch (error) {
      if (error instanceof StorageError && error.code === 'KeyExists') return undefined;
      throw error;
    }
  }

  /**
   * Replaces `current` with `next`; undefined when the object changed (or went) since
   * `current` was read. A `stale` row (in an older version) is written even when nothing
   * else changes, as etcd3's GuaranteedUpdate rewrites a stale object: that is what
   * moves it to the storage version.
   */
  async #replace(key: StorageKey, current: StoredObject, next: KubeObject, stale: boolean): Promise<UpdateResult | undefined> {
    if (!stale && jsonEqual(withoutResourceVersion(next), withoutResourceVersion(current))) {
      return { object: current, changed: false, created: false };
    }
    const at = this.#at(key);
    const expected = current.metadata.resourceVersion;
    return this.#write(async (trx) => {
      // The object's row before the counter, as every write takes them: the same order
      // everywhere keeps writers from deadlocking, and a lost race allocates nothing.
      if (!(await lockObject(trx, at, expected))) return { result: undefined, wrote: false };
      const rv = await nextResourceVersion(trx);
      const stored = withResourceVersion(next, rv);
      const labels = labelsOf(stored);
      const fields = this.#o.fieldsOf(stored);
      await updateObject(trx, at, expected, { rv, labels, fields, object: stored });
      await appendEvent(trx, {
        rv,
        resource: this.#o.resource,
        ...key,
        type: 'MODIFIED',
        labels,
        fields,
        prevLabels: labelsOf(current),
        prevFields: this.#o.fieldsOf(current),
        object: stored,
        prevObject: current,
      });
      return { result: { object: stored, changed: true, created: false }, wrote: true };
    });
  }

  async delete(key: StorageKey, precondition?: DeletePrecondition): Promise<StoredObject> {
    // Optimistic as guaranteedUpdate: the precondition (validating admission) runs with nothing held.
    for (;;) {
      const row = await this.#readRow(key);
      if (!row) throw keyNotFound(this.#describe(key));
      const current = this.#decoder.decode(row);
      await precondition?.(deepCopy(current));
      const deleted = await this.#remove(key, current);
      if (deleted) return deleted;
    }
  }

  /** Deletes `current` and its log lines; undefined when the object changed (or went) since it was read. */
  #remove(key: StorageKey, current: StoredObject): Promise<StoredObject | undefined> {
    const at = this.#at(key);
    const expected = current.metadata.resourceVersion;
    return this.#write(async (trx) => {
      // The row lock also waits for log appends in flight, whose lines are then deleted too.
      if (!(await lockObject(trx, at, expected))) return { result: undefined, wrote: false };
      // Any resource's log lines go with their object, in its transaction. Deleted before the
      // resourceVersion is taken: a long log must not hold the counter, which every writer waits for.
      await deleteLogLines(trx, String(current.metadata.uid));
      const rv = await nextResourceVersion(trx);
      await deleteObject(trx, at, expected);
      // As kube's watch cache does, the DELETED object carries the deletion's resourceVersion.
      const deleted = withResourceVersion(current, rv);
      await appendEvent(trx, {
        rv,
        resource: this.#o.resource,
        ...key,
        type: 'DELETED',
        labels: labelsOf(current),
        fields: this.#o.fieldsOf(current),
        object: deleted,
        prevObject: current,
      });
      return { result: deleted, wrote: true };
    });
  }

  async list(namespace: string | undefined, request: ListRequest): Promise<ListResult> {
    try {
      return await this.#o.database.transaction(
        async (trx) => {
          const current = await readCurrentResourceVersion(trx);
          const compacted = await readCompactedResourceVersion(trx);
          if (request.notOlderThan !== undefined && BigInt(request.notOlderThan) > current) {
            throw tooLarge(request.notOlderThan, current.toString());
          }
          const rv = request.resourceVersion === undefined ? current : BigInt(request.resourceVersion);
          if (rv > current) throw tooLarge(rv.toString(), current.toString());
          if (rv < compacted) throw tooOld(rv.toString(), compacted.toString());
          const page = await readSnapshotPage(trx, {
            resource: this.#o.resource,
            namespace,
            predicate: request.predicate,
            resourceVersion: rv,
            after: request.after,
            limit: request.limit,
            countRemaining: request.countRemaining,
          });
          return { ...page, items: page.items.map((item) => this.#decoder.decode(item)), resourceVersion: rv.toString() };
        },
        { snapshot: true },
      );
    } catch (error) {
      throw classifyDatabaseError(error);
    }
  }

  async watch(
    namespace: string | undefined,
    resourceVersion: string | undefined,
    predicate: SelectionPredicate,
    options: StorageWatchOptions = {},
  ): Promise<StorageWatcher> {
    // The bounds of the history a watch can start in: after the compacted prefix, not after the newest commit.
    let from: bigint;
    try {
      from = await this.#o.database.transaction(
        async (trx) => {
          const current = await readCurrentResourceVersion(trx);
          if (resourceVersion === undefined) return current;
          const requested = BigInt(resourceVersion);
          const compacted = await readCompactedResourceVersion(trx);
          if (requested < compacted) throw tooOld(resourceVersion, compacted.toString());
          if (requested > current) throw tooLarge(resourceVersion, current.toString());
          return requested;
        },
        { snapshot: true },
      );
    } catch (error) {
      throw classifyDatabaseError(error);
    }
    const watcher = new EventLogWatcher({
      resource: this.#o.resource,
      namespace,
      predicate,
      from,
      decode: (object) => this.#decoder.decodeShared(object),
      bookmarkIntervalMs: options.bookmarkIntervalMs,
      database: this.#o.database,
      cache: this.#o.cache,
      onStop: (w) => this.#watchers.delete(w),
    });
    this.#watchers.add(watcher);
    return watcher;
  }

  async staleKeys(after: StorageKey | undefined, limit: number): Promise<readonly StorageKey[]> {
    const apiVersion = this.#decoder.apiVersion;
    if (apiVersion === undefined) return [];
    try {
      return await this.#o.database.run((db) => readStaleKeys(db, this.#o.resource, apiVersion, after, limit));
    } catch (error) {
      throw classifyDatabaseError(error);
    }
  }

  async countStale(): Promise<number> {
    const apiVersion = this.#decoder.apiVersion;
    if (apiVersion === undefined) return 0;
    try {
      return await this.#o.database.run((db) => countStaleRows(db, this.#o.resource, apiVersion));
    } catch (error) {
      throw classifyDatabaseError(error);
    }
  }

  /** Ends every watch of this resource (shutdown). */
  stopWatchers(): void {
    for (const watcher of [...this.#watchers]) watcher.stop();
  }
}
