/**
 * The REST objects of an endpoint in one version, as kube's `rest.Getter`, `Lister`,
 * `Watcher`, `Creater`, `Updater`, `GracefulDeleter` and `CollectionDeleter`: handlers
 * call only these, and objects go in and come out as the hub — the storage version, as
 * kube's REST storage speaks its internal version; the request scope decodes into it and
 * the response converts out of it. What a REST object implements is
 * what its endpoint serves: the endpoint table derives the verbs from its methods, as
 * kube's installer does.
 */
import type { KubeObject } from '../machinery/meta/object.js';
import type { StorageWatcher } from '../storage/interfaces.js';
import type { DeleteOptions, GetOptions, ListOptions, WatchOptions } from './request-options.js';
import type { ListPage, ObjectKey, Store, StoreWriteOptions, ValidateObject, ValidateObjectUpdate, WriteOrigin } from './store.js';
import type { LogReader } from './log-reader.js';
import type { LogOptions } from './request-options.js';

/** Options of a write through an endpoint. */
export interface EndpointWriteOptions extends StoreWriteOptions {
  /**
   * The manager of a write that is not an apply, for an endpoint whose objects carry no
   * managedFields: a Scale's records the write on the object the Scale is mapped onto.
   * Other endpoints ignore it: the handler recorded the write (the scope's `recordUpdate`).
   */
  readonly manager?: string;
}

/** kube's UpdatedObjectInfo: the object a write wants, from the current one (undefined when there is none); both hub objects. */
export type UpdatedObjectInfo = (current: KubeObject | undefined) => unknown;

/** kube's rest.Getter. */
export interface Getter {
  get(key: ObjectKey, options?: GetOptions): Promise<KubeObject>;
}

/**
 * kube's rest.GetterWithOptions: a read whose query parameters are its own options (the
 * REST object reads and validates them), answering one object in the representation negotiated.
 */
export interface GetterWithOptions {
  getWithOptions(key: ObjectKey, parameters: URLSearchParams): Promise<KubeObject>;
}

/** kube's rest.Updater, which serves both PUT and PATCH. */
export interface Updater {
  update(
    key: ObjectKey,
    objInfo: UpdatedObjectInfo,
    createValidation: ValidateObject,
    updateValidation: ValidateObjectUpdate,
    forceAllowCreate: boolean,
    options: EndpointWriteOptions,
  ): Promise<{ readonly object: KubeObject; readonly created: boolean }>;
}

/** kube's rest.Creater. */
export interface Creater {
  create(namespace: string, object: KubeObject, createValidation: ValidateObject, options: EndpointWriteOptions): Promise<KubeObject>;
}

/** kube's rest.Lister: a page, or every object a chunk at a time from one snapshot. */
export interface Lister {
  list(namespace: string | undefined, options: ListOptions): Promise<ListPage<KubeObject>>;
  listInChunks(namespace: string | undefined, options: ListOptions, chunk: number): AsyncGenerator<ListPage<KubeObject>>;
  /** The objects' stored JSON text (the hub's), never parsed. */
  readonly storedJson?: StoredJsonLister;
}

/** A list of the objects' stored JSON text. */
export interface StoredJsonLister {
  list(namespace: string | undefined, options: ListOptions): Promise<ListPage<string>>;
  listInChunks(namespace: string | undefined, options: ListOptions, chunk: number): AsyncGenerator<ListPage<string>>;
}

/** A started watch, its objects the hub's (the watch cache's own, shared by every watcher). */
export interface EndpointWatch {
  readonly initial: AsyncIterable<KubeObject>;
  readonly initialEventsEnd?: string;
  readonly watcher: StorageWatcher;
}

/** kube's rest.Watcher. */
export interface Watcher {
  watch(namespace: string | undefined, options: WatchOptions): Promise<EndpointWatch>;
}

/** kube's rest.GracefulDeleter; `origin` is recorded with what the deletion writes. */
export interface GracefulDeleter {
  delete(
    key: ObjectKey,
    options: DeleteOptions,
    deleteValidation: ValidateObject,
    origin?: WriteOrigin,
  ): Promise<{ readonly object: KubeObject; readonly deleted: boolean }>;
}

/** kube's rest.CollectionDeleter: what it deleted, a chunk at a time. */
export interface CollectionDeleter {
  deleteCollection(
    namespace: string | undefined,
    selection: ListOptions,
    options: DeleteOptions,
    deleteValidation: ValidateObject,
    chunk: number,
    origin?: WriteOrigin,
  ): AsyncGenerator<ListPage<KubeObject>>;
}

/** A log read, as kube's pods/log is a `rest.GetterWithOptions` that streams. */
export interface LogStreamer {
  /** The query parameter naming a stream (`step`). */
  readonly streamParameter: string;
  open(key: ObjectKey, options: LogOptions): Promise<LogReader>;
}

/** A log append: POST to an object's log. */
export interface LogAppender {
  readonly streamParameter: string;
  append(key: ObjectKey, stream: string | undefined, lines: readonly string[]): Promise<void>;
}

/** Any endpoint's REST object: some of kube's REST interfaces. */
export type EndpointREST = Partial<
  Getter & GetterWithOptions & Updater & Creater & Lister & Watcher & GracefulDeleter & CollectionDeleter & LogStreamer & LogAppender
>;

/** The methods of the REST interfaces, and the verbs each serves (kube's installer: an Updater serves update and patch). */
const verbsOfMethod: Readonly<Record<string, readonly string[]>> = {
  create: ['create'],
  append: ['create'],
  delete: ['delete'],
  deleteCollection: ['deletecollection'],
  get: ['get'],
  getWithOptions: ['get'],
  open: ['get'],
  list: ['list'],
  update: ['patch', 'update'],
  watch: ['watch'],
};

/** The methods of the REST interfaces that a REST object (or a REST class's prototype) implements. */
export function restMethodsOf(rest: object): string[] {
  return Object.keys(verbsOfMethod).filter((method) => typeof (rest as Record<string, unknown>)[method] === 'function');
}

/** The verbs REST methods serve, sorted as discovery lists them. */
export function verbsOf(methods: readonly string[]): string[] {
  return [...new Set(methods.flatMap((method) => verbsOfMethod[method] ?? []))].sort();
}

/** What a write through an endpoint is checked against in the endpoint's version, besides the store's validation of the hub. */
export interface VersionValidation {
  /** Refuses (422, in the endpoint's version's paths) a hub object that is no valid object of the endpoint's version. */
  readonly validate: (object: KubeObject) => void;
  /** The endpoint's version's path of a field the storage version's validation names. */
  readonly fieldPath?: (storagePath: string) => string;
}

/** kube's StatusREST: get and update of one store (the status store). */
export class ObjectREST implements Getter, Updater {
  protected readonly store: Store;
  protected readonly version: VersionValidation;

  constructor(store: Store, version: VersionValidation) {
    this.store = store;
    this.version = version;
  }

  protected validated(object: KubeObject): KubeObject {
    this.version.validate(object);
    return object;
  }

  async get(key: ObjectKey, options?: GetOptions): Promise<KubeObject> {
    return this.store.get(key, options);
  }

  async update(
    key: ObjectKey,
    objInfo: UpdatedObjectInfo,
    createValidation: ValidateObject,
    updateValidation: ValidateObjectUpdate,
    forceAllowCreate: boolean,
    options: EndpointWriteOptions,
  ): Promise<{ readonly object: KubeObject; readonly created: boolean }> {
    return this.store.update(
      key,
      async (current) => this.validated((await objInfo(current)) as KubeObject),
      createValidation,
      updateValidation,
      forceAllowCreate,
      { ...options, fieldPath: this.version.fieldPath },
    );
  }
}

/** kube's generic registry REST: every verb of a resource's main endpoint. */
export class ResourceREST extends ObjectREST implements Creater, Lister, Watcher, GracefulDeleter, CollectionDeleter {
  readonly storedJson: StoredJsonLister;

  constructor(store: Store, version: VersionValidation) {
    super(store, version);
    this.storedJson = {
      list: (namespace, options) => store.listJson(namespace, options),
      listInChunks: (namespace, options, chunk) => store.listJsonInChunks(namespace, options, chunk),
    };
  }

  async create(namespace: string, object: KubeObject, createValidation: ValidateObject, options: EndpointWriteOptions): Promise<KubeObject> {
    return this.store.create(namespace, this.validated(object), createValidation, { ...options, fieldPath: this.version.fieldPath });
  }

  async list(namespace: string | undefined, options: ListOptions): Promise<ListPage<KubeObject>> {
    return this.store.list(namespace, options);
  }

  listInChunks(namespace: string | undefined, options: ListOptions, chunk: number): AsyncGenerator<ListPage<KubeObject>> {
    return this.store.listInChunks(namespace, options, chunk);
  }

  async watch(namespace: string | undefined, options: WatchOptions): Promise<EndpointWatch> {
    return this.store.watch(namespace, options);
  }

  async delete(
    key: ObjectKey,
    options: DeleteOptions,
    deleteValidation: ValidateObject,
    origin?: WriteOrigin,
  ): Promise<{ readonly object: KubeObject; readonly deleted: boolean }> {
    return this.store.delete(key, options, deleteValidation, origin);
  }

  deleteCollection(
    namespace: string | undefined,
    selection: ListOptions,
    options: DeleteOptions,
    deleteValidation: ValidateObject,
    chunk: number,
    origin?: WriteOrigin,
  ): AsyncGenerator<ListPage<KubeObject>> {
    return this.store.deleteCollection(namespace, selection, options, deleteValidation, chunk, origin);
  }
}
