/**
 * Storage of one resource in the object table, each write recorded in the event
 * log in the same transaction, and the logs of its objects. Writes are optimistic:
 * what computes or checks the new state runs after a plain read, with nothing held,
 * and the write joins the store's next batch ({@link WriteBatcher}), which applies it
 * only if the object is still as read. Every get and list is read from the tables, by
 * index (a get by its primary key, or at a resourceVersion by two: snapshot-get.ts; a
 * list one keyed page at a time: snapshot-list.ts);
 * the {@link Cacher} decorates it with the object cache where that is on.
 */
import { deepCopy, deepFreeze, jsonEqual, type KubeObject, type StoredObject } from '../machinery/meta/object.js';
import type { CoalescedNotify } from './coalesced-notify.js';
import type { Database } from './database.js';
import { readCurrentResourceVersion, readResourceCompacted } from './event-log.js';
import type { LogWakeups } from './log-wakeups.js';
import { countStaleRows, readObject, readStaleKeys, type ObjectRowKey } from './object-rows.js';
import type {
  DeletePrecondition,
  FieldsOf,
  GetOptions,
  GuaranteedUpdateOptions,
  HistoryPage,
  HistoryRequest,
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
  WriteOrigin,
} from './interfaces.js';
import { readHistory } from './object-history.js';
import type { StringMap } from './schema.js';
import { splitObjectText, writtenObject, type ObjectText } from './object-text.js';
import { readObjectAt, type ObjectAt } from './snapshot-get.js';
import { readSnapshotPage, type PageItem } from './snapshot-list.js';
import { classifyDatabaseError, keyExists, keyNotFound, StorageError, tooLarge, tooOld } from './storage-error.js';
import { decodeText, encodeJsonb } from './stored-text.js';
import type { WatchCache } from './watch-cache.js';
import { EventLogWatcher } from './event-log-watcher.js';
import { SqlLogStorage } from './sql-log-storage.js';
import { VersionDecoder } from './version-decoder.js';
import type { WriteBatcher } from './write-batcher.js';
import { WrittenEvent } from './written-event.js';

/** What a SqlResourceStorage is made of. */
export interface SqlResourceStorageOptions {
  readonly resource: string;
  readonly fieldsOf: FieldsOf;
  /** The storage version rows are read in; rows are read as written when undefined. */
  readonly versioning?: StorageVersioning;
  readonly database: Database;
  readonly cache: WatchCache;
  /** The store's writer loop, which every write of every resource joins. */
  readonly writes: WriteBatcher;
  /** The followers of logs in this process. */
  readonly logWakeups: LogWakeups;
  /** Wakes the other replicas' log followers after an append. */
  readonly logNotify: CoalescedNotify;
  /** The most bytes one object's log keeps; 0 or undefined: no cap. */
  readonly logMaxBytes?: number;
}

const labelsOf = (object: KubeObject): StringMap => object.metadata?.labels ?? {};

/**
 * A shallow copy of `object` with its own metadata, whose resourceVersion the write
 * sets once it has one: nothing deep is copied, the caller hands the object over.
 */
function toStore(object: KubeObject, rv = ''): StoredObject {
  return { ...object, metadata: { ...object.metadata, resourceVersion: rv } } as StoredObject;
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
      resource: options.resource,
      readCurrent: (key) => this.#readCurrent(key),
      wakeups: options.logWakeups,
      notify: options.logNotify,
      maxBytes: options.logMaxBytes,
    });
  }

  #describe(key: StorageKey): string {
    return `/${this.#o.resource}/${key.namespace}/${key.name}`;
  }

  /**
   * Writes `stored` (a create, or an update of `current`) in the next batch: the object
   * is stringified once (`text`: `splitObjectText(stored)`), for its row, its event and
   * the write's response, and this
   * process's watch cache gets the event from that text. Resolves with the new resourceVersion, or undefined when
   * the key exists (create) or the row is no longer at `current`'s (update).
   */
  #writeObject(
    key: StorageKey,
    stored: StoredObject,
    current: StoredObject | undefined,
    origin: WriteOrigin | undefined,
    text: ObjectText,
  ): Promise<bigint | undefined> {
    const labels = labelsOf(stored);
    const fields = this.#o.fieldsOf(stored);
    const prevLabels = current && labelsOf(current);
    const prevFields = current && this.#o.fieldsOf(current);
    const resource = this.#o.resource;
    const type = current ? 'MODIFIED' : 'ADDED';
    const [encodedLabels, encodedFields] = [encodeJsonb(labels), encodeJsonb(fields)];
    const [encodedPrevLabels, encodedPrevFields] = [prevLabels && encodeJsonb(prevLabels), prevFields && encodeJsonb(prevFields)];
    // Only a change of labels or fields can take the object out of a watch's selection, which then needs its previous state.
    const selectionChanged = current !== undefined && (encodedPrevLabels !== encodedLabels || encodedPrevFields !== encodedFields);
    const prevObject = selectionChanged ? deepFreeze(deepCopy(current)) : undefined;
    return this.#o.writes.submit({
      op: current ? 'update' : 'create',
      resource,
      namespace: key.namespace,
      name: key.name,
      expected: current?.metadata.resourceVersion,
      uid: current ? undefined : String(stored.metadata.uid),
      apiVersion: String(stored.apiVersion),
      labels: encodedLabels,
      fields: encodedFields,
      prevLabels: encodedPrevLabels,
      prevFields: encodedPrevFields,
      object: text,
      origin,
      event: (rv) => new WrittenEvent({ rv, resource, ...key, type, labels, fields, prevLabels, prevFields, prevObject }, { text: `${text.head}${text.tail}` }),
    });
  }

  /** The row of `key` in this resource. */
  #at(key: StorageKey): ObjectRowKey {
    return { resource: this.#o.resource, namespace: key.namespace, name: key.name };
  }

  /** The current object, decoded, for a log append to check its stream against; throws `KeyNotFound`. */
  async #readCurrent(key: StorageKey): Promise<StoredObject> {
    const current = await this.#readRow(key);
    if (!current) throw keyNotFound(this.#describe(key));
    return this.#decoder.decode(current);
  }

  /** The current object as its row holds it (maybe in an older version), or undefined: one query, no transaction, no lock. */
  async #readRow(key: StorageKey): Promise<StoredObject | undefined> {
    try {
      return await readObject(this.#o.database, this.#at(key));
    } catch (error) {
      throw classifyDatabaseError(error);
    }
  }

  async create(key: StorageKey, object: KubeObject, origin?: WriteOrigin): Promise<StoredObject> {
    const stored = toStore(object);
    const text = splitObjectText(stored);
    const rv = await this.#writeObject(key, stored, undefined, origin, text);
    if (rv === undefined) throw keyExists(this.#describe(key));
    return writtenObject(stored, rv, text);
  }

  async get(key: StorageKey, options: GetOptions = {}): Promise<StoredObject> {
    const wanted = options.resourceVersion === undefined ? 0n : BigInt(options.resourceVersion);
    if (options.resourceVersionMatch === 'Exact' && options.resourceVersion !== undefined) return this.#getAt(key, wanted);
    if (wanted > 0n) {
      // Not older than N: the row, read after the counter, is at least as new as the counter, which must have reached N.
      const current = await this.#currentResourceVersion();
      if (wanted > current) throw tooLarge(wanted.toString(), current.toString());
    }
    const row = await this.#readRow(key);
    if (!row) throw keyNotFound(this.#describe(key));
    return this.#decoder.decode(row);
  }

  /** The object as it was at exactly `rv`, checked against the bounds of the history its statement saw. */
  async #getAt(key: StorageKey, rv: bigint): Promise<StoredObject> {
    let found: ObjectAt;
    try {
      found = await readObjectAt(this.#o.database, this.#o.resource, key, rv);
    } catch (error) {
      throw classifyDatabaseError(error);
    }
    if (rv > found.current) throw tooLarge(rv.toString(), found.current.toString());
    if (rv < found.compacted) throw tooOld(rv.toString(), found.compacted.toString());
    if (!found.object) throw keyNotFound(this.#describe(key));
    return this.#decoder.decode(found.object);
  }

  async #currentResourceVersion(): Promise<bigint> {
    try {
      return await this.#o.database.run((db) => readCurrentResourceVersion(db));
    } catch (error) {
      throw classifyDatabaseError(error);
    }
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
      if (next === undefined) {
        if (!current) throw keyNotFound(this.#describe(key));
        return { object: current, changed: false, created: false };
      }
      const written =
        row && current
          ? await this.#replace(key, current, next, this.#decoder.isStale(row), options.origin)
          : await this.#createIfAbsent(key, next, options.origin);
      if (written) return written;
      row = await this.#readRow(key);
    }
  }

  /** Creates `next` for an update that found no object; undefined when another write created it first. */
  async #createIfAbsent(key: StorageKey, next: KubeObject, origin: WriteOrigin | undefined): Promise<UpdateResult | undefined> {
    try {
      return { object: await this.create(key, next, origin), changed: true, created: true };
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
  async #replace(key: StorageKey, current: StoredObject, next: KubeObject, stale: boolean, origin: WriteOrigin | undefined): Promise<UpdateResult | undefined> {
    if (!stale && jsonEqual(withoutResourceVersion(next), withoutResourceVersion(current))) {
      return { object: current, changed: false, created: false };
    }
    const stored = toStore(next);
    const text = splitObjectText(stored);
    const rv = await this.#writeObject(key, stored, current, origin, text);
    if (rv === undefined) return undefined;
    return { object: writtenObject(stored, rv, text), changed: true, created: false };
  }

  async delete(key: StorageKey, precondition?: DeletePrecondition, origin?: WriteOrigin): Promise<StoredObject | undefined> {
    // Optimistic as guaranteedUpdate: the precondition (validating admission) runs with nothing held.
    for (;;) {
      const row = await this.#readRow(key);
      if (!row) throw keyNotFound(this.#describe(key));
      const current = this.#decoder.decode(row);
      if ((await precondition?.(deepCopy(current))) === false) return undefined;
      const deleted = await this.#remove(key, current, origin);
      if (deleted) return deleted;
    }
  }

  /**
   * Deletes `current` and its log lines (any resource's log lines go with their object,
   * in its transaction: see write-batch-statement.ts); undefined when the object changed
   * (or went) since it was read.
   */
  async #remove(key: StorageKey, current: StoredObject, origin: WriteOrigin | undefined): Promise<StoredObject | undefined> {
    const labels = labelsOf(current);
    const fields = this.#o.fieldsOf(current);
    const resource = this.#o.resource;
    const rv = await this.#o.writes.submit({
      op: 'delete',
      resource,
      namespace: key.namespace,
      name: key.name,
      expected: current.metadata.resourceVersion,
      labels: encodeJsonb(labels),
      fields: encodeJsonb(fields),
      object: splitObjectText(toStore(current)),
      origin,
      // The watch cache's copy is its own: what the caller gets back stays the caller's to change.
      event: (rv) =>
        new WrittenEvent({ rv, resource, ...key, type: 'DELETED', labels, fields }, { frozen: deepFreeze(deepCopy(toStore(current, rv.toString()))) }),
    });
    // As kube's watch cache does, the DELETED object carries the deletion's resourceVersion.
    return rv === undefined ? undefined : toStore(current, rv.toString());
  }

  /**
   * One page read from the database at one snapshot: the newest (not older than
   * `notOlderThan`; `'0'` too, and its limit is kept: this page is a keyed read, not
   * the whole resource), or exactly `resourceVersion`.
   */
  list(namespace: string | undefined, request: ListRequest): Promise<ListResult> {
    return this.#page(namespace, request, false, (item) => this.#decoder.decode(item.object as StoredObject));
  }

  listJson(namespace: string | undefined, request: ListRequest): Promise<ListResult<string>> {
    return this.#page(namespace, request, true, (item) => {
      const text = item.object as string;
      // A row in an older version is converted, which needs its value; the others go out as read.
      return this.#decoder.isStaleVersion(decodeText(item.apiVersion)) ? JSON.stringify(this.#decoder.decode(JSON.parse(text) as StoredObject)) : text;
    });
  }

  /** A page of `list` or `listJson`, each row made an item by `item`. */
  async #page<Item>(namespace: string | undefined, request: ListRequest, text: boolean, item: (row: PageItem) => Item): Promise<ListResult<Item>> {
    try {
      let rv: bigint;
      if (request.resourceVersion !== undefined) {
        rv = BigInt(request.resourceVersion);
      } else {
        // The newest state, read first; the page's statement, a snapshot at least as new, reads the state at it.
        rv = await this.#o.database.run((db) => readCurrentResourceVersion(db));
        if (request.notOlderThan !== undefined && BigInt(request.notOlderThan) > rv) throw tooLarge(request.notOlderThan, rv.toString());
      }
      const page = await this.#o.database.run((db) =>
        readSnapshotPage(db, {
          resource: this.#o.resource,
          namespace,
          predicate: request.predicate,
          resourceVersion: rv,
          after: request.after,
          limit: request.limit,
          countRemaining: request.countRemaining,
          text,
        }),
      );
      if (rv > page.current) throw tooLarge(rv.toString(), page.current.toString());
      // Checked in the page's own snapshot: compaction deletes the log's prefix and moves this mark in one transaction.
      if (rv < page.compacted) throw tooOld(rv.toString(), page.compacted.toString());
      return {
        items: page.items.map(item),
        resourceVersion: rv.toString(),
        ...(page.continueAfter ? { continueAfter: page.continueAfter } : {}),
        ...(page.remainingItemCount !== undefined ? { remainingItemCount: page.remainingItemCount } : {}),
      };
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
    // The bounds of the history a watch can start in: after the resource's compacted prefix, not after the newest commit.
    let from: bigint;
    try {
      from = await this.#o.database.transaction(
        async (trx) => {
          const current = await readCurrentResourceVersion(trx);
          if (resourceVersion === undefined) return current;
          const requested = BigInt(resourceVersion);
          const compacted = await readResourceCompacted(trx, this.#o.resource);
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

  async history(key: StorageKey, request: HistoryRequest): Promise<HistoryPage> {
    try {
      const page = await readHistory(this.#o.database, this.#o.resource, key, request);
      return {
        // Rows keep the version they were written in: converted as every read is.
        revisions: page.revisions.map((revision) => deepFreeze({ ...revision, object: this.#decoder.decode(revision.object) })),
        resourceVersion: page.current.toString(),
        compacted: page.compacted.toString(),
        ...(page.continueBefore !== undefined ? { continueBefore: page.continueBefore } : {}),
      };
    } catch (error) {
      throw classifyDatabaseError(error);
    }
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
