/**
 * The REST objects of an endpoint in one version, as kube's `rest.Getter`, `Lister`,
 * `Watcher`, `Creater`, `Updater`, `GracefulDeleter` and `CollectionDeleter`: handlers
 * call only these, and objects go in and come out in the request's version (conversion
 * to and from the storage version happens inside). What a REST object implements is
 * what its endpoint serves: the endpoint table derives the verbs from its methods, as
 * kube's installer does.
 */
import type { KubeObject, StoredObject } from '../machinery/meta/object.js';
import { cacheEncode } from '../machinery/caching-object.js';
import type { StorageWatcher } from '../storage/interfaces.js';
import type { DeleteOptions, GetOptions, ListOptions, WatchOptions } from './request-options.js';
import type { ListPage, ObjectKey, Store, StoreWriteOptions, ValidateObject, ValidateObjectUpdate } from './store.js';
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

/** kube's UpdatedObjectInfo: the object a write wants, from the current one in the request's version (undefined when there is none). */
export type UpdatedObjectInfo = (current: KubeObject | undefined) => unknown;

/** kube's rest.Getter. */
export interface Getter {
  get(key: ObjectKey, options?: GetOptions): Promise<KubeObject>;
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
  /** The objects' stored JSON text, never parsed: only in the storage version, which it is. */
  readonly storedJson?: StoredJsonLister;
}

/** A list of the objects' stored JSON text. */
export interface StoredJsonLister {
  list(namespace: string | undefined, options: ListOptions): Promise<ListPage<string>>;
  listInChunks(namespace: string | undefined, options: ListOptions, chunk: number): AsyncGenerator<ListPage<string>>;
}

/** A started watch, its objects in the request's version. */
export interface EndpointWatch {
  readonly initial: AsyncIterable<KubeObject>;
  readonly initialEventsEnd?: string;
  readonly watcher: StorageWatcher;
}

/** kube's rest.Watcher. */
export interface Watcher {
  watch(namespace: string | undefined, options: WatchOptions): Promise<EndpointWatch>;
}

/** kube's rest.GracefulDeleter. */
export interface GracefulDeleter {
  delete(key: ObjectKey, options: DeleteOptions, deleteValidation: ValidateObject): Promise<{ readonly object: KubeObject; readonly deleted: boolean }>;
}

/** kube's rest.CollectionDeleter: what it deleted, a chunk at a time. */
export interface CollectionDeleter {
  deleteCollection(
    namespace: string | undefined,
    selection: ListOptions,
    options: DeleteOptions,
    deleteValidation: ValidateObject,
    chunk: number,
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
export type EndpointREST = Partial<Getter & Updater & Creater & Lister & Watcher & GracefulDeleter & CollectionDeleter & LogStreamer & LogAppender>;

/** The methods of the REST interfaces, and the verbs each serves (kube's installer: an Updater serves update and patch). */
const verbsOfMethod: Readonly<Record<string, readonly string[]>> = {
  create: ['create'],
  append: ['create'],
  delete: ['delete'],
  deleteCollection: ['deletecollection'],
  get: ['get'],
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

/** How a store is spoken to in one version. */
export interface VersionConversion {
  /** The request's apiVersion (`cairn.dev/v1alpha1`), naming its shared conversions. */
  readonly apiVersion: string;
  readonly toStorage: (object: KubeObject) => KubeObject;
  readonly fromStorage: (object: KubeObject) => KubeObject;
  /** Validates an object of the request's version before it is converted; 422 in that version's paths. */
  readonly validate: (object: KubeObject) => void;
  /** The request version's path of a field the storage version's validation names. */
  readonly fieldPath?: (storagePath: string) => string;
}

/** kube's StatusREST: get and update of one store (the status store), in one version. */
export class ObjectREST implements Getter, Updater {
  protected readonly store: Store;
  protected readonly conversion: VersionConversion;

  constructor(store: Store, conversion: VersionConversion) {
    this.store = store;
    this.conversion = conversion;
  }

  protected inStorage(object: KubeObject): KubeObject {
    this.conversion.validate(object);
    return this.conversion.toStorage(object);
  }

  protected fromStorage(object: KubeObject): KubeObject {
    return this.conversion.fromStorage(object);
  }

  async get(key: ObjectKey, options?: GetOptions): Promise<KubeObject> {
    return this.fromStorage(await this.store.get(key, options));
  }

  async update(
    key: ObjectKey,
    objInfo: UpdatedObjectInfo,
    createValidation: ValidateObject,
    updateValidation: ValidateObjectUpdate,
    forceAllowCreate: boolean,
    options: EndpointWriteOptions,
  ): Promise<{ readonly object: KubeObject; readonly created: boolean }> {
    const outcome = await this.store.update(
      key,
      async (current) => this.inStorage((await objInfo(current && this.fromStorage(current))) as KubeObject),
      createValidation,
      updateValidation,
      forceAllowCreate,
      { ...options, fieldPath: this.conversion.fieldPath },
    );
    return { object: this.fromStorage(outcome.object), created: outcome.created };
  }
}

/** kube's generic registry REST: every verb of a resource's main endpoint, in one version. */
export class ResourceREST extends ObjectREST implements Creater, Lister, Watcher, GracefulDeleter, CollectionDeleter {
  readonly storedJson?: StoredJsonLister;

  constructor(store: Store, conversion: VersionConversion, storageVersion: boolean) {
    super(store, conversion);
    if (storageVersion) {
      this.storedJson = {
        list: (namespace, options) => store.listJson(namespace, options),
        listInChunks: (namespace, options, chunk) => store.listJsonInChunks(namespace, options, chunk),
      };
    }
  }

  async create(namespace: string, object: KubeObject, createValidation: ValidateObject, options: EndpointWriteOptions): Promise<KubeObject> {
    return this.fromStorage(await this.store.create(namespace, this.inStorage(object), createValidation, { ...options, fieldPath: this.conversion.fieldPath }));
  }

  async list(namespace: string | undefined, options: ListOptions): Promise<ListPage<KubeObject>> {
    return this.#page(await this.store.list(namespace, options));
  }

  async *listInChunks(namespace: string | undefined, options: ListOptions, chunk: number): AsyncGenerator<ListPage<KubeObject>> {
    for await (const page of this.store.listInChunks(namespace, options, chunk)) yield this.#page(page);
  }

  /**
   * The watch cache hands every watcher the same frozen object: its conversion to this
   * version is made once and shared by every watcher of the version (`caching-object.ts`).
   */
  async watch(namespace: string | undefined, options: WatchOptions): Promise<EndpointWatch> {
    const { initial, initialEventsEnd, watcher } = await this.store.watch(namespace, options);
    const fromStorage = (object: KubeObject) => this.fromStorage(object);
    const identifier = `convert ${this.conversion.apiVersion}`;
    async function* converted(): AsyncGenerator<KubeObject> {
      for await (const object of initial) yield fromStorage(object);
    }
    return {
      initial: converted(),
      ...(initialEventsEnd !== undefined ? { initialEventsEnd } : {}),
      watcher: {
        stop: () => watcher.stop(),
        async *[Symbol.asyncIterator]() {
          for await (const event of watcher) {
            yield event.type === 'BOOKMARK' ? event : { ...event, object: cacheEncode(event.object, identifier, fromStorage) as StoredObject };
          }
        },
      },
    };
  }

  async delete(key: ObjectKey, options: DeleteOptions, deleteValidation: ValidateObject): Promise<{ readonly object: KubeObject; readonly deleted: boolean }> {
    const { object, deleted } = await this.store.delete(key, options, deleteValidation);
    return { object: this.fromStorage(object), deleted };
  }

  async *deleteCollection(
    namespace: string | undefined,
    selection: ListOptions,
    options: DeleteOptions,
    deleteValidation: ValidateObject,
    chunk: number,
  ): AsyncGenerator<ListPage<KubeObject>> {
    for await (const page of this.store.deleteCollection(namespace, selection, options, deleteValidation, chunk)) yield this.#page(page);
  }

  #page(page: ListPage): ListPage<KubeObject> {
    return { ...page, items: page.items.map((item) => this.fromStorage(item)) };
  }
}
