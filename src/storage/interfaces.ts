/**
 * The storage interface the registry builds on: keys, resourceVersions, typed
 * storage errors and watch streams. Nothing here knows HTTP or a kind's semantics.
 */
import type { FieldSelector } from '../machinery/selectors/field-selector.js';
import type { LabelSelector } from '../machinery/selectors/label-selector.js';
import type { KubeObject, StoredObject } from '../machinery/meta/object.js';
import type { FieldMap } from './schema.js';

/** Where one object lives: its resource (`pipelines.cairn.dev`), namespace (`''` when cluster-scoped) and name. */
export interface StorageKey {
  readonly namespace: string;
  readonly name: string;
}

/** Label and field selectors applied in storage. */
export interface SelectionPredicate {
  readonly labelSelector?: LabelSelector;
  readonly fieldSelector?: FieldSelector;
}

/**
 * Which part of a resource's objects a list reads, and at which resourceVersion, with
 * kube's semantics for the combinations (and where they are served from, as kube's
 * cacher decides, where the object cache is on and holds the resource; the database,
 * by index, one keyed page at a time, otherwise):
 *
 * | request | reads | served from |
 * |---|---|---|
 * | neither `resourceVersion` nor `notOlderThan` | the newest state: every write acknowledged before the list began (a consistent read) | the object cache once it caught up with the database's newest resourceVersion; the database if it does not within the wait |
 * | `notOlderThan: '0'` | any state (kube's `resourceVersion=0`); the object cache ignores `limit`, as kube's cacher does (it holds a bounded number of objects); the database keeps it | the object cache as it is |
 * | `notOlderThan: N` | a state at least as new as N; `TooLarge` when the database has not reached N | the object cache once it reached N |
 * | `resourceVersion: N` (Exact), or `after` (a continued list) | exactly the state at N, for any N inside the resource's retained history | the object cache when nothing of the resource changed since N; the database otherwise |
 *
 * A page the object cache serves with a limit is continued by the database at exactly
 * its resourceVersion.
 */
export interface ListRequest {
  readonly predicate: SelectionPredicate;
  /** The snapshot to read, exactly; see the table above for when undefined. */
  readonly resourceVersion?: string;
  /** Read a state at least this new (not necessarily the newest): fail with `TooLarge` when the database has not reached it. */
  readonly notOlderThan?: string;
  /** At most this many items; all when undefined. */
  readonly limit?: number;
  /** Start after this key (a continued list). */
  readonly after?: StorageKey;
  /**
   * Count the items after a first page (`remainingItemCount`): only a page without
   * `after` and without selectors is counted, from counts storage keeps, never by
   * reading the rest. (The pages after it carry the count on: they are the same
   * snapshot, so each follows from the one before.)
   */
  readonly countRemaining?: boolean;
}

/**
 * What a list returns: the items and the resourceVersion they are consistent at. The
 * items are objects, or, from {@link ResourceStorage.listJson}, their JSON text.
 */
export interface ListResult<Item = StoredObject> {
  readonly items: readonly Item[];
  readonly resourceVersion: string;
  /** The key to continue after, when more items match than the limit let through. */
  readonly continueAfter?: StorageKey;
  /** How many matching items follow this page, when counted and there are any. */
  readonly remainingItemCount?: number;
}

/**
 * Options of a get, as kube's GetOptions: with `resourceVersion` unset the newest
 * object (every write acknowledged before the get began), `'0'` any state the cache
 * holds, N a state at least as new as N (`TooLarge` when the database has not
 * reached N). With `resourceVersionMatch: 'Exact'` and N, the object exactly as it was
 * at N, read from the database by index (`KeyNotFound` when there was none then, an
 * object deleted since included, one created since not; `TooOld` when N is older than
 * the resource's retained history, `TooLarge` when newer than the newest commit).
 */
export interface GetOptions {
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'Exact' | 'NotOlderThan';
}

/** A change, as the event log recorded it, already filtered for one watcher. */
export interface StorageObjectEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** Frozen: receivers copy before changing it. */
  readonly object: StoredObject;
  readonly resourceVersion: string;
}

/** Progress: every change up to `resourceVersion` has been delivered (or did not match). */
export interface StorageBookmarkEvent {
  readonly type: 'BOOKMARK';
  readonly resourceVersion: string;
}

/** What a watcher yields. */
export type StorageWatchEvent = StorageObjectEvent | StorageBookmarkEvent;

/** Options of a storage watch. */
export interface StorageWatchOptions {
  /** Yield a BOOKMARK this often (milliseconds); never when undefined. */
  readonly bookmarkIntervalMs?: number;
}

/** A stream of watch events; iterate it, and `stop()` it when the client leaves. */
export interface StorageWatcher extends AsyncIterable<StorageWatchEvent> {
  stop(): void;
  /**
   * Whether events are at hand that the next step hands over without waiting: a
   * stream sends what it wrote once none is, as kube's watch server flushes when its
   * channel is empty, so a batch of events goes out in one write.
   */
  pending(): boolean;
}

/**
 * Computes the object to store from the current one (a copy it may change). It runs
 * with nothing held — no lock, no transaction, no connection — so it may be slow (an
 * admission webhook runs here), and it runs again, on the newer object, when another
 * write got in first. `current` is undefined only under `ignoreNotFound`, when there
 * is no object: what it returns is then created. Answer undefined to leave an object as
 * it is (nothing is written, not even a stale one), as a caller does that decided to
 * remove it instead; throw to abort the write.
 */
export type TryUpdate = (current: StoredObject | undefined) => KubeObject | undefined | Promise<KubeObject | undefined>;

/** Options of a guaranteed update. */
export interface GuaranteedUpdateOptions {
  /** Who writes, and how: recorded with the event the update writes (see {@link WriteOrigin}). */
  readonly origin?: WriteOrigin;
  /**
   * When there is no object, call `tryUpdate(undefined)` and create what it returns
   * instead of failing with `KeyNotFound`, as kube's `ignoreNotFound` does for an
   * update that may create (server-side apply, a PUT with `forceAllowCreate`).
   */
  readonly ignoreNotFound?: boolean;
}

/** The verb of the request that wrote a revision, as audit names it. */
export type WriteOperation = 'create' | 'update' | 'patch' | 'apply' | 'delete';

/** Who wrote a revision and how, recorded with its event (the `history` subresource shows it). */
export interface WriteOrigin {
  readonly operation: WriteOperation;
  /** '' for the object itself; 'status' or 'scale' for those subresources' writes. */
  readonly subresource: string;
  /** The request's fieldManager ('' when none: a delete). */
  readonly fieldManager: string;
  /** The username of the request's (audit) identity; '' for Cairn's own writes without one. */
  readonly user: string;
}

/** One revision of an object: the event that wrote it, and the object as that event left it (a deletion: as it was deleted). */
export interface Revision {
  readonly resourceVersion: string;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** When it was written (the database's clock). */
  readonly time: Date;
  /** Undefined for revisions written before origins were recorded. */
  readonly origin?: WriteOrigin;
  /** In the storage version (converted as every read is), frozen. */
  readonly object: StoredObject;
}

/** Which revisions of one key a history read returns: newest first, at most `limit`, older than `before` (a continue). */
export interface HistoryRequest {
  readonly limit: number;
  readonly before?: string;
  /** Only the revisions of the object with this uid (one incarnation of a name deleted and created again). */
  readonly uid?: string;
}

/** A page of an object's history. */
export interface HistoryPage {
  readonly revisions: readonly Revision[];
  /** The resourceVersion to continue before, when more revisions follow. */
  readonly continueBefore?: string;
  /** The newest committed resourceVersion when read. */
  readonly resourceVersion: string;
  /** The oldest resourceVersion the history is complete after (the resource's compaction mark): older revisions are gone. */
  readonly compacted: string;
}

/** The outcome of a guaranteed update. */
export interface UpdateResult {
  readonly object: StoredObject;
  /** False when the update changed nothing: no new resourceVersion, no event. */
  readonly changed: boolean;
  /** True when there was no object and one was created (only under `ignoreNotFound`). */
  readonly created: boolean;
}

/**
 * Checks the current object before it is deleted; throw to refuse, answer false to keep
 * it (as a caller does that decided to mark it instead). Like {@link TryUpdate} it runs
 * with nothing held, may be slow, and runs again on the newer object when another
 * write got in first.
 */
export type DeletePrecondition = (current: StoredObject) => boolean | void | Promise<boolean | void>;

/** One line of an object's log, as stored. */
export interface LogLine {
  /** Its place in the log: an object's lines are appended, and read, in increasing `seq`. */
  readonly seq: bigint;
  /** The stream it belongs to (a Pipeline's step). */
  readonly stream: string;
  /** When it was appended, by the database's clock, in microseconds since the Unix epoch. */
  readonly appendedAt: bigint;
  readonly text: string;
}

/** Which lines of a log a read returns: at most `limit` after `after`, in `seq` order. */
export interface LogRead {
  readonly after: bigint;
  readonly limit: number;
  /** Only this stream's lines; every stream's when undefined. */
  readonly stream?: string;
  /** Only the lines appended at or after this time. */
  readonly since?: Date;
}

/** Waits for new lines of one log (`follow`); `stop()` it when done. */
export interface LogFollower {
  /**
   * Resolves once lines may have been appended since the previous wait returned (at
   * once when that happened already), or when `signal` aborts.
   */
  wait(signal: AbortSignal): Promise<void>;
  stop(): void;
}

/** The logs of one resource's objects: lines appended to an object, keyed by its uid and deleted with it. */
export interface LogStorage {
  /**
   * Appends `lines` to the log of the object at `key`, in the stream `streamOf` picks
   * from the current object (or throws to refuse the append). Appends to one object
   * are serialized with each other and with its deletion. Throws `KeyNotFound`.
   */
  append(key: StorageKey, lines: readonly string[], streamOf: (current: StoredObject) => string): Promise<void>;
  /** Reads lines of the log of the object with `uid`. */
  read(uid: string, request: LogRead): Promise<readonly LogLine[]>;
  /** The `seq` the last `count` lines (of `stream`) follow: where a read of the log's tail starts. */
  tailStart(uid: string, count: number, stream?: string): Promise<bigint>;
  /** Follows the log of the object with `uid`: its follower wakes at every append, on any replica. */
  follow(uid: string): LogFollower;
}

/** Storage of one resource (for example `pipelines.cairn.dev`). */
export interface ResourceStorage {
  /**
   * Stores a new object; throws `KeyExists`. Returns it with `metadata.resourceVersion`
   * set, deep-frozen (what it holds of `object` too), its JSON encoding the text stored.
   * `origin` is recorded with its event.
   */
  create(key: StorageKey, object: KubeObject, origin?: WriteOrigin): Promise<StoredObject>;
  /**
   * Reads one object; throws `KeyNotFound`. The object is frozen and may be shared
   * with other readers (the object cache's): copy before changing it.
   */
  get(key: StorageKey, options?: GetOptions): Promise<StoredObject>;
  /**
   * Reads one object, computes its next state with `tryUpdate` and writes it if the
   * object has not changed since the read, retrying on the newer object until the
   * write succeeds or `tryUpdate` throws (as etcd3's GuaranteedUpdate). An update that
   * changes nothing, or that `tryUpdate` answers undefined, writes nothing. Throws
   * `KeyNotFound` (unless `ignoreNotFound`; also when `tryUpdate` answers undefined and
   * there is no object), or what `tryUpdate` throws. An object written is returned as
   * `create` returns it: deep-frozen (with what it holds of `tryUpdate`'s answer), its
   * JSON encoding the text stored.
   *
   * @example
   * // Set a label; a concurrent write to the object makes this run again on the newer object.
   * await storage.guaranteedUpdate(key, (current) => ({ ...current, metadata: { ...current!.metadata, labels: { tier: 'gold' } } }));
   */
  guaranteedUpdate(key: StorageKey, tryUpdate: TryUpdate, options?: GuaranteedUpdateOptions): Promise<UpdateResult>;
  /**
   * Deletes one object after `precondition` accepted its current state, retrying on
   * the newer object when it changed in between; returns it carrying the
   * resourceVersion of its deletion, or undefined when `precondition` kept it. Its log
   * lines go with it. Throws `KeyNotFound`, or what `precondition` throws. `origin` is
   * recorded with its event.
   */
  delete(key: StorageKey, precondition?: DeletePrecondition, origin?: WriteOrigin): Promise<StoredObject | undefined>;
  /**
   * Reads the revisions of the object at `key` that the event log retains, newest first,
   * a page at a time: a deleted object's too (its DELETED revision first), until
   * compaction removes them; every live object keeps at least its newest. An empty page
   * when none is retained (or the key never existed). Objects are converted to the
   * storage version, as every read is.
   */
  history(key: StorageKey, request: HistoryRequest): Promise<HistoryPage>;
  /**
   * Lists the objects of one namespace (or all, when undefined) matching the
   * predicate, ordered by key, as they were at one resourceVersion. Throws `TooOld`
   * when that version is older than the resource's retained history (its own, where
   * its history is kept longer than the log's) and `TooLarge` when it is
   * newer than the newest commit. The items are frozen and may be shared with other
   * readers: copy before changing one.
   */
  list(namespace: string | undefined, request: ListRequest): Promise<ListResult>;
  /**
   * As {@link list}, with each item as the JSON text of the object in the storage
   * version rather than the object: for a reader that only writes the items out (a JSON
   * response in the storage version), so that nothing parses an object to serialize it
   * again. The text is JSON, but not necessarily as `JSON.stringify` spells it
   * (PostgreSQL prints `jsonb` with a space after each `:` and `,`).
   */
  listJson(namespace: string | undefined, request: ListRequest): Promise<ListResult<string>>;
  /**
   * Streams every change after `resourceVersion` (after the newest commit when
   * undefined) in order, exactly once, reading what the watch cache no longer holds
   * from the database. Throws `TooOld` when that version is older than the
   * resource's retained history (or when compaction overtakes the watch while it
   * reads the database) and `TooLarge` when it is newer than the newest commit.
   */
  watch(
    namespace: string | undefined,
    resourceVersion: string | undefined,
    predicate: SelectionPredicate,
    options?: StorageWatchOptions,
  ): Promise<StorageWatcher>;
  /** The logs of this resource's objects (the `log` subresource). */
  readonly logs: LogStorage;
  /**
   * The keys of the objects whose rows are encoded in another version than the
   * storage version, in key order: at most `limit`, after `after`. None without
   * {@link StorageVersioning}. Rewriting such an object (a guaranteedUpdate that
   * changes nothing does) takes it out of the next page's reach.
   */
  staleKeys(after: StorageKey | undefined, limit: number): Promise<readonly StorageKey[]>;
  /** How many objects' rows are encoded in another version than the storage version. */
  countStale(): Promise<number>;
}

/** How storage learns a kind's selectable fields (`spec.runnerClassName`, …) for SQL selection. */
export type FieldsOf = (object: KubeObject) => FieldMap;

/**
 * A resource's storage version and the way to it from its other versions. A row keeps
 * the version it was written in, so rows written before the storage version changed
 * are in an older one: storage converts them on every read (get, list, watch, the
 * current object of an update), and rewrites them in the storage version, even when
 * an update changes nothing else, as etcd3's GuaranteedUpdate does with a stale object.
 */
export interface StorageVersioning {
  /** The apiVersion objects are stored in (`cairn.dev/v1`). */
  readonly apiVersion: string;
  /** Converts an object of another version to the storage version: a copy, apiVersion included. Throws for a version it cannot convert. */
  readonly toStorage: (object: KubeObject) => KubeObject;
}

/** The database-wide store: one resource storage per registered resource. */
export interface ObjectStore {
  /**
   * Storage for `resource` (a qualified resource such as `pipelines.cairn.dev`);
   * without `versioning`, objects are read as they were written and none is stale.
   */
  forResource(resource: string, fieldsOf: FieldsOf, versioning?: StorageVersioning): ResourceStorage;
  /** The newest committed resourceVersion. */
  currentResourceVersion(): Promise<string>;
  /**
   * Drops events older than the retention window but each live object's current state,
   * unless another replica is doing it now. The resources in `longerRetentionMs` keep
   * their events for as long as it says (never shorter than `retentionMs`): as history,
   * past the mark watches start after.
   */
  compact(retentionMs: number, longerRetentionMs?: ReadonlyMap<string, number>): Promise<Compaction>;
}

/** What a compaction did. */
export interface Compaction {
  /** The newest resourceVersion whose events are gone. */
  readonly compacted: string;
  /** False when another replica held the compaction lock and this one left the work to it. */
  readonly ran: boolean;
  /** How many events it removed. */
  readonly removed: number;
}
