/**
 * Storage of one resource in the object table, each write recorded in the event
 * log in the same transaction, and the logs of its objects.
 */
import type { Transaction } from 'kysely';
import { deepCopy, jsonEqual, type KubeObject, type StoredObject } from '../machinery/object.js';
import type { CoalescedNotify } from './coalesced-notify.js';
import type { Database } from './database.js';
import { appendEvent, nextResourceVersion, readCompactedResourceVersion, readCurrentResourceVersion } from './event-log.js';
import { deleteLogLines } from './log-lines.js';
import type { LogWakeups } from './log-wakeups.js';
import type {
  FieldsOf,
  ListRequest,
  ListResult,
  LogStorage,
  ResourceStorage,
  SelectionPredicate,
  StorageKey,
  StorageWatcher,
  StorageWatchOptions,
  TryUpdate,
  UpdateResult,
} from './object-store.js';
import type { StorageSchema, StringMap } from './schema.js';
import { readSnapshotPage } from './snapshot-list.js';
import { classifyDatabaseError, keyExists, keyNotFound, tooLarge, tooOld } from './storage-error.js';
import type { WatchCache } from './watch-cache.js';
import { LogWatcher } from './log-watcher.js';
import { SqlLogStorage } from './sql-log-storage.js';
import { encodeJsonb, encodeText } from './stored-text.js';

/** What a SqlResourceStorage is made of. */
export interface SqlResourceStorageOptions {
  readonly resource: string;
  readonly fieldsOf: FieldsOf;
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
  readonly #watchers = new Set<LogWatcher>();
  readonly logs: LogStorage;

  constructor(options: SqlResourceStorageOptions) {
    this.#o = options;
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

  async #lockCurrent(trx: Transaction<StorageSchema>, key: StorageKey): Promise<StoredObject> {
    const row = await trx
      .selectFrom('cairn_objects')
      .select('object')
      .where('resource', '=', this.#o.resource)
      .where('namespace', '=', encodeText(key.namespace))
      .where('name', '=', encodeText(key.name))
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw keyNotFound(this.#describe(key));
    return row.object as StoredObject;
  }

  create(key: StorageKey, object: KubeObject): Promise<StoredObject> {
    return this.#write(async (trx) => {
      const rv = await nextResourceVersion(trx);
      const stored = withResourceVersion(object, rv);
      const labels = labelsOf(stored);
      const fields = this.#o.fieldsOf(stored);
      const inserted = await trx
        .insertInto('cairn_objects')
        .values({
          resource: this.#o.resource,
          namespace: encodeText(key.namespace),
          name: encodeText(key.name),
          uid: String(stored.metadata.uid),
          resource_version: rv.toString(),
          labels: encodeJsonb(labels),
          fields: encodeJsonb(fields),
          object: encodeJsonb(stored),
        })
        .onConflict((oc) => oc.doNothing())
        .returning('name')
        .executeTakeFirst();
      // Throwing rolls the counter back too: a failed create leaves no gap.
      if (!inserted) throw keyExists(this.#describe(key));
      await appendEvent(trx, { rv, resource: this.#o.resource, ...key, type: 'ADDED', labels, fields, object: stored });
      return { result: stored, wrote: true };
    });
  }

  async get(key: StorageKey): Promise<StoredObject> {
    let row;
    try {
      row = await this.#o.database.run((db) =>
        db
          .selectFrom('cairn_objects')
          .select('object')
          .where('resource', '=', this.#o.resource)
          .where('namespace', '=', encodeText(key.namespace))
          .where('name', '=', encodeText(key.name))
          .executeTakeFirst(),
      );
    } catch (error) {
      throw classifyDatabaseError(error);
    }
    if (!row) throw keyNotFound(this.#describe(key));
    return row.object as StoredObject;
  }

  guaranteedUpdate(key: StorageKey, tryUpdate: TryUpdate): Promise<UpdateResult> {
    return this.#write(async (trx) => {
      const current = await this.#lockCurrent(trx, key);
      const next = await tryUpdate(deepCopy(current));
      if (jsonEqual(withoutResourceVersion(next), withoutResourceVersion(current))) {
        return { result: { object: current, changed: false } as UpdateResult, wrote: false };
      }
      const rv = await nextResourceVersion(trx);
      const stored = withResourceVersion(next, rv);
      const labels = labelsOf(stored);
      const fields = this.#o.fieldsOf(stored);
      await trx
        .updateTable('cairn_objects')
        .set({
          resource_version: rv.toString(),
          labels: encodeJsonb(labels),
          fields: encodeJsonb(fields),
          object: encodeJsonb(stored),
        })
        .where('resource', '=', this.#o.resource)
        .where('namespace', '=', encodeText(key.namespace))
        .where('name', '=', encodeText(key.name))
        .execute();
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
      return { result: { object: stored, changed: true }, wrote: true };
    });
  }

  delete(key: StorageKey, precondition?: (current: StoredObject) => void): Promise<StoredObject> {
    return this.#write(async (trx) => {
      const current = await this.#lockCurrent(trx, key);
      precondition?.(current);
      // Any resource's log lines go with their object, in its transaction. Deleted before the
      // resourceVersion is taken: a long log must not hold the counter, which every writer waits for.
      await deleteLogLines(trx, String(current.metadata.uid));
      const rv = await nextResourceVersion(trx);
      await trx
        .deleteFrom('cairn_objects')
        .where('resource', '=', this.#o.resource)
        .where('namespace', '=', encodeText(key.namespace))
        .where('name', '=', encodeText(key.name))
        .execute();
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
          return { ...page, resourceVersion: rv.toString() };
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
    const watcher = new LogWatcher({
      resource: this.#o.resource,
      namespace,
      predicate,
      from,
      bookmarkIntervalMs: options.bookmarkIntervalMs,
      database: this.#o.database,
      cache: this.#o.cache,
      onStop: (w) => this.#watchers.delete(w),
    });
    this.#watchers.add(watcher);
    return watcher;
  }

  /** Ends every watch of this resource (shutdown). */
  stopWatchers(): void {
    for (const watcher of [...this.#watchers]) watcher.stop();
  }
}
