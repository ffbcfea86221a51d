/**
 * The object cache as a storage decorator, as kube's cacher wraps its etcd3 store: gets
 * and lists are served from the resource's {@link ObjectCache} where kube's cacher
 * would serve them ({@link CachedReads} decides), everything else, and every read the
 * cache cannot serve (a resource with more objects than the cache holds, an older
 * snapshot, a continued page once something changed), goes to the storage it wraps.
 * The cache is an optimization with a bound: without it the wrapped storage answers
 * every read with the same semantics, at index speed.
 */
import type { KubeObject, StoredObject } from '../machinery/meta/object.js';
import { CachedReads, type CachedReadsOptions } from './cached-reads.js';
import type {
  DeletePrecondition,
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
  StorageWatcher,
  StorageWatchOptions,
  TryUpdate,
  UpdateResult,
  WriteOrigin,
} from './interfaces.js';
import { keyNotFound, StorageError } from './storage-error.js';

/** What a Cacher is made of: what its {@link CachedReads} are, and the resource and storage it decorates. */
export interface CacherOptions extends CachedReadsOptions {
  /** The resource (`pipelines.cairn.dev`), for errors. */
  readonly resource: string;
  /** The storage it decorates: what writes, watches, and reads the cache cannot serve. */
  readonly storage: ResourceStorage;
}

/** A ResourceStorage whose reads come from an object cache where they may. */
export class Cacher implements ResourceStorage {
  readonly #storage: ResourceStorage;
  readonly #resource: string;
  readonly #reads: CachedReads;

  constructor(options: CacherOptions) {
    this.#storage = options.storage;
    this.#resource = options.resource;
    this.#reads = new CachedReads(options);
  }

  get logs(): LogStorage {
    return this.#storage.logs;
  }

  async get(key: StorageKey, options: GetOptions = {}): Promise<StoredObject> {
    const object = await this.#reads.get(key, options, () => absentAsUndefined(this.#storage.get(key, options)));
    if (!object) throw keyNotFound(`/${this.#resource}/${key.namespace}/${key.name}`);
    return object;
  }

  list(namespace: string | undefined, request: ListRequest): Promise<ListResult> {
    return this.#reads.list(
      namespace,
      request,
      () => this.#storage.list(namespace, request),
      (object) => object,
    );
  }

  listJson(namespace: string | undefined, request: ListRequest): Promise<ListResult<string>> {
    // The cache holds values: serialized once each here, where the database's text would not need to be.
    return this.#reads.list(
      namespace,
      request,
      () => this.#storage.listJson(namespace, request),
      (object) => JSON.stringify(object),
    );
  }

  create(key: StorageKey, object: KubeObject, origin?: WriteOrigin): Promise<StoredObject> {
    return this.#storage.create(key, object, origin);
  }

  guaranteedUpdate(key: StorageKey, tryUpdate: TryUpdate, options?: GuaranteedUpdateOptions): Promise<UpdateResult> {
    return this.#storage.guaranteedUpdate(key, tryUpdate, options);
  }

  delete(key: StorageKey, precondition?: DeletePrecondition, origin?: WriteOrigin): Promise<StoredObject | undefined> {
    return this.#storage.delete(key, precondition, origin);
  }

  /** Always from the database: the object cache holds only the newest state. */
  history(key: StorageKey, request: HistoryRequest): Promise<HistoryPage> {
    return this.#storage.history(key, request);
  }

  watch(
    namespace: string | undefined,
    resourceVersion: string | undefined,
    predicate: SelectionPredicate,
    options?: StorageWatchOptions,
  ): Promise<StorageWatcher> {
    return this.#storage.watch(namespace, resourceVersion, predicate, options);
  }

  staleKeys(after: StorageKey | undefined, limit: number): Promise<readonly StorageKey[]> {
    return this.#storage.staleKeys(after, limit);
  }

  countStale(): Promise<number> {
    return this.#storage.countStale();
  }
}

/** The object a get found, or undefined for none (the cache answers a miss the same way). */
async function absentAsUndefined(get: Promise<StoredObject>): Promise<StoredObject | undefined> {
  try {
    return await get;
  } catch (error) {
    if (error instanceof StorageError && error.code === 'KeyNotFound') return undefined;
    throw error;
  }
}
