/**
 * The generic store, as k8s.io/apiserver's `genericregistry.Store`: create, get, list,
 * update, delete, deletecollection and watch for any resource, driven by one strategy.
 * It speaks the storage version only; decoding, conversion, patches and field
 * ownership happen before it is called (in the handlers), admission through the
 * validation functions it is handed. One Store per resource and strategy: the status
 * subresource is the same store with the status strategy.
 */
import { randomUUID } from 'node:crypto';
import { storageVersionOf, type ApiResource, type Strategy } from '../apis/api-resource.js';
import { decodeContinue, encodeContinue, type ContinuePosition } from '../machinery/meta/continue-token.js';
import { now } from '../machinery/meta/time.js';
import {
  badRequest,
  conflict,
  continueExpired,
  deletePreconditionFailed,
  invalid,
  notFound,
  optimisticLockMessage,
  updatePreconditionFailed,
  type FieldError,
  type GroupResource,
} from '../machinery/errors.js';
import { generateName } from '../machinery/meta/names.js';
import { compactObjectMeta, type KubeObject, type StoredObject } from '../machinery/meta/object.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../machinery/meta/object-meta-validation.js';
import { StatusError } from '../machinery/status.js';
import type { ListRequest, ListResult, ResourceStorage, StorageWatcher, WriteOrigin } from '../storage/interfaces.js';
import { StorageError } from '../storage/storage-error.js';
import { conversionAnnotationErrors } from './conversion-annotations.js';
import { deletionComplete, deletionDecision, type DeletionDecision } from './deletion.js';
import { interpretReadError, interpretStorageError, translatedWatcher } from './interpret-storage-error.js';
import type { DeleteOptions, GetOptions, ListOptions, Preconditions, WatchOptions } from './request-options.js';
import type { SchemaValidator } from './schema-validator.js';

/** Where an object is addressed: its namespace ('' when cluster-scoped) and name. */
export interface ObjectKey {
  readonly namespace: string;
  readonly name: string;
}

/**
 * kube's `rest.UpdatedObjectInfo`: the object a write wants, computed from the current
 * one (undefined when there is none and the write may create). It runs with no lock
 * held and may run more than once when another write wins the race.
 */
export type ObjectInfo = (current: StoredObject | undefined) => KubeObject | Promise<KubeObject>;

/** kube's `rest.ValidateObjectFunc`: validating admission of a create, after the strategy's validation. */
export type ValidateObject = (object: KubeObject) => void | Promise<void>;

/** kube's `rest.ValidateObjectUpdateFunc`: validating admission of an update. */
export type ValidateObjectUpdate = (object: KubeObject, old: StoredObject) => void | Promise<void>;

export type { WriteOperation, WriteOrigin } from '../storage/interfaces.js';

/** Options every write takes. */
export interface StoreWriteOptions {
  readonly dryRun: boolean;
  /**
   * Who writes and how (the request's verb, subresource, field manager and user),
   * recorded with the event the write logs, for the object's history.
   */
  readonly origin?: WriteOrigin;
  /**
   * kube's `UpdatedObjectInfo.Preconditions()`: the uid a PUT's body carries, which the
   * object must have (409 otherwise, before anything else is checked). A patch has none.
   */
  readonly preconditions?: Pick<Preconditions, 'uid'>;
  /**
   * Where a field the storage version's validation names is in the request's version,
   * when that is another: a 422 names the fields the client sent.
   */
  readonly fieldPath?: (storagePath: string) => string;
}

/** The result of a delete: the object's last state, and whether it is gone (false while finalizers hold it). */
export interface DeleteOutcome {
  readonly object: StoredObject;
  readonly deleted: boolean;
}

/** The result of an update: the object, and whether the update created it. */
export interface UpdateOutcome {
  readonly object: StoredObject;
  readonly created: boolean;
}

/** A started watch: the synthetic ADDED objects first, then the storage stream. */
export interface RegistryWatch {
  /** The initial state's objects, read a page at a time from one snapshot as they are consumed: none is held whole. */
  readonly initial: AsyncIterable<StoredObject>;
  /** With `sendInitialEvents=true`: the resourceVersion of the initial state, sent in the bookmark that ends it. */
  readonly initialEventsEnd?: string;
  readonly watcher: StorageWatcher;
}

/** A list result: one page, and what a client needs to fetch the next. */
export interface ListPage<Item = StoredObject> {
  readonly items: readonly Item[];
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

/** How a list's `resourceVersion` and `resourceVersionMatch` choose the snapshot it reads. */
function snapshotOf(options: ListOptions): Pick<ListRequest, 'resourceVersion' | 'notOlderThan'> {
  const rv = options.resourceVersion;
  if (rv === '') return {};
  // Any state will do: the watch cache's as it is, as kube's cacher serves it.
  if (rv === '0') return { notOlderThan: '0' };
  // For legacy reasons kube reads a paged list without resourceVersionMatch at exactly that version.
  const exact = options.resourceVersionMatch === 'Exact' || (options.resourceVersionMatch === undefined && options.limit !== undefined);
  return exact ? { resourceVersion: rv } : { notOlderThan: rv };
}

/** Where a continued list resumes; undefined for a first page. */
function continuePositionOf(options: ListOptions): ContinuePosition | undefined {
  if (!options.continue) return undefined;
  // As kube's storage.ValidateListOptions: the token is read first.
  const position = decodeContinue(options.continue);
  if (options.resourceVersion !== '' && options.resourceVersion !== '0') {
    throw badRequest('specifying resource version is not allowed when using continue');
  }
  return position;
}

/** How many objects each read of a watch's initial state holds. */
const initialEventsPageSize = 500;

async function* noObjects(): AsyncGenerator<StoredObject> {}

const generateNameAttempts = 8;
const deleteAttempts = 3;

/**
 * What an update does with the object it made: write it, or, when that removes the last
 * finalizer of an object being deleted, remove the object read at `resourceVersion`.
 */
type UpdateDecision =
  { readonly action: 'write'; readonly object: KubeObject } | { readonly action: 'remove'; readonly object: KubeObject; readonly resourceVersion: string };

/** What a Store is made of. */
export interface StoreOptions {
  readonly resource: ApiResource;
  readonly strategy: Strategy;
  readonly storage: ResourceStorage;
  readonly validator: SchemaValidator;
}

const uint64Max = 2n ** 64n - 1n;

/** Whether a new object names a resourceVersion, as kube's storage reads one (`ObjectResourceVersion`: a uint64 other than 0). */
function namesResourceVersion(object: KubeObject): boolean {
  const sent = object.metadata?.resourceVersion;
  return typeof sent === 'string' && /^\d+$/.test(sent) && BigInt(sent) > 0n && BigInt(sent) <= uint64Max;
}

/** The generic store of one resource, through one strategy. */
export class Store {
  readonly resource: ApiResource;
  readonly strategy: Strategy;
  readonly #storage: ResourceStorage;
  readonly #validator: SchemaValidator;
  readonly #gr: GroupResource;

  constructor(options: StoreOptions) {
    this.resource = options.resource;
    this.strategy = options.strategy;
    this.#storage = options.storage;
    this.#validator = options.validator;
    this.#gr = { group: options.resource.group, resource: options.resource.plural };
  }

  /** The same store with another strategy: `/status` writes through the status strategy, as kube's StatusREST. */
  withStrategy(strategy: Strategy): Store {
    return new Store({ resource: this.resource, strategy, storage: this.#storage, validator: this.#validator });
  }

  async #call<T>(name: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw interpretStorageError(error, this.#gr, name);
    }
  }

  #storageKey(key: ObjectKey): ObjectKey {
    return { namespace: this.resource.namespaced ? key.namespace : '', name: key.name };
  }

  /** The namespace and name of a written object must be the request's; 400 otherwise, as kube's handlers answer. */
  #checkKey(object: KubeObject, namespace: string, name?: string): void {
    const ns = object.metadata?.namespace;
    if (ns && (!this.resource.namespaced || ns !== namespace)) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    const objectName = object.metadata?.name;
    if (name !== undefined && objectName && objectName !== name) {
      throw badRequest(`the name of the object (${objectName}) does not match the name on the URL (${name})`);
    }
  }

  /** Schema, ObjectMeta and strategy validation, as kube's BeforeCreate/BeforeUpdate run it; 422 naming every field. */
  #validate(object: KubeObject, old: KubeObject | undefined, options: StoreWriteOptions): void {
    const { schemaName } = storageVersionOf(this.resource);
    let errors: FieldError[] = [
      ...this.#validator.validate(schemaName, object),
      ...validateObjectMeta(object.metadata ?? {}, this.resource.namespaced, this.resource.validateName),
      ...conversionAnnotationErrors(this.resource, object),
    ];
    if (errors.length === 0) errors = old ? this.strategy.validateUpdate(object, old) : this.strategy.validate(object);
    const { fieldPath } = options;
    if (fieldPath) errors = errors.map((error) => ({ ...error, field: fieldPath(error.field) }));
    if (errors.length) throw invalid(this.resource.kind, this.resource.group, object.metadata?.name ?? '', errors);
  }

  /**
   * kube's `rest.BeforeCreate`, in its order: system metadata, generateName, namespace,
   * prepareForCreate, validation. Returns the object to store.
   */
  #beforeCreate(object: KubeObject, namespace: string, generate: boolean, options: StoreWriteOptions): KubeObject {
    this.#checkKey(object, namespace);
    const meta = { ...(object.metadata ?? {}) };
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    meta.uid = randomUUID();
    meta.creationTimestamp = now();
    meta.generation = 1;
    if (generate) meta.name = generateName(meta.generateName!);
    if (this.resource.namespaced) meta.namespace = namespace;
    const prepared = this.strategy.prepareForCreate({ ...object, metadata: meta });
    prepared.metadata = compactObjectMeta(prepared.metadata!);
    this.#validate(prepared, undefined, options);
    return prepared;
  }

  /**
   * kube's `rest.BeforeUpdate`, in its order: identity and immutable metadata, the
   * resourceVersion precondition, system metadata carried over, prepareForUpdate,
   * generation, validation. Returns the object to store.
   */
  #beforeUpdate(next: KubeObject, current: StoredObject, key: ObjectKey, options: StoreWriteOptions): KubeObject {
    // A changed name or namespace is a 422 on the field, as for the other immutable metadata, before the 400 of a mismatched URL.
    const immutable = validateObjectMetaUpdate(next.metadata ?? {}, current.metadata);
    if (immutable.length) throw invalid(this.resource.kind, this.resource.group, key.name, immutable);
    this.#checkKey(next, key.namespace, key.name);
    const sent = next.metadata?.resourceVersion;
    if (sent && sent !== current.metadata.resourceVersion) throw conflict(this.#gr, key.name, optimisticLockMessage);
    // What the client left out is carried over; what it changed was refused above.
    const meta = { ...(next.metadata ?? {}) };
    meta.name = current.metadata.name;
    if (this.resource.namespaced) meta.namespace = current.metadata.namespace;
    meta.uid = current.metadata.uid;
    meta.creationTimestamp = current.metadata.creationTimestamp;
    meta.resourceVersion = current.metadata.resourceVersion;
    // Only a delete sets or changes these.
    if (current.metadata.deletionTimestamp) meta.deletionTimestamp = current.metadata.deletionTimestamp;
    else delete meta.deletionTimestamp;
    if (current.metadata.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = current.metadata.deletionGracePeriodSeconds;
    else delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    const prepared = this.strategy.prepareForUpdate({ ...next, metadata: meta }, current);
    const generation = current.metadata.generation ?? 1;
    prepared.metadata = {
      ...compactObjectMeta(prepared.metadata ?? {}),
      generation: this.strategy.generationChanged(prepared, current) ? generation + 1 : generation,
    };
    this.#validate(prepared, current, options);
    return prepared;
  }

  /** create: BeforeCreate, validating admission, storage; a generated name that collides is generated again. */
  async create(namespace: string, object: KubeObject, createValidation: ValidateObject, options: StoreWriteOptions): Promise<StoredObject> {
    const generate = !object.metadata?.name && Boolean(object.metadata?.generateName);
    for (let attempt = 1; ; attempt++) {
      const prepared = this.#beforeCreate(object, namespace, generate, options);
      await createValidation(prepared);
      if (options.dryRun) return prepared as StoredObject;
      // kube's storage refuses it here (after admission, never in a dry run) with a 500; bad input is a 400 in Cairn.
      if (namesResourceVersion(object)) throw badRequest('resourceVersion should not be set on objects to be created');
      const name = prepared.metadata!.name!;
      try {
        return await this.#storage.create(this.#storageKey({ namespace, name }), prepared, options.origin);
      } catch (error) {
        // As kube's RetryGenerateName does.
        if (generate && attempt < generateNameAttempts && error instanceof StorageError && error.code === 'KeyExists') continue;
        throw interpretStorageError(error, this.#gr, name);
      }
    }
  }

  /** get */
  async get(key: ObjectKey, options: GetOptions = {}): Promise<StoredObject> {
    try {
      return await this.#storage.get(this.#storageKey(key), options);
    } catch (error) {
      throw interpretReadError(error, this.#gr, key.name, 'get');
    }
  }

  /**
   * A whole list (no `limit`, no `continue`) read in pages of `chunk` from one snapshot,
   * for a response written as it is read: memory holds two pages, not the collection.
   * The first page answers the options' resourceVersion as an unpaged list would; the
   * others continue at that page's resourceVersion. Each page is read while the one
   * before is being written, so the database and the response work at the same time.
   */
  listInChunks(namespace: string | undefined, options: ListOptions, chunk: number): AsyncGenerator<ListPage> {
    return this.#chunks((request) => this.#storage.list(namespace, request), options, chunk);
  }

  /** As {@link listInChunks}, each item the JSON text of the object (storage's `listJson`): for a JSON response in the storage version. */
  listJsonInChunks(namespace: string | undefined, options: ListOptions, chunk: number): AsyncGenerator<ListPage<string>> {
    return this.#chunks((request) => this.#storage.listJson(namespace, request), options, chunk);
  }

  async *#chunks<Item>(list: (request: ListRequest) => Promise<ListResult<Item>>, options: ListOptions, chunk: number): AsyncGenerator<ListPage<Item>> {
    const predicate = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
    const read = (request: ListRequest): Promise<ListResult<Item>> => {
      const reading = list(request).catch((error: unknown) => {
        throw interpretReadError(error, this.#gr, '', 'list');
      });
      // A reader that stops early leaves the page read ahead unread: its failure is nobody's to hear.
      reading.catch(() => undefined);
      return reading;
    };
    let next = read({ predicate, limit: chunk, countRemaining: false, ...snapshotOf({ ...options, limit: undefined }) });
    for (;;) {
      const result = await next;
      const after = result.continueAfter;
      if (after) next = read({ predicate, limit: chunk, countRemaining: false, resourceVersion: result.resourceVersion, after });
      yield { items: result.items, resourceVersion: result.resourceVersion };
      if (!after) return;
    }
  }

  /**
   * list: one page of the snapshot the options select, consistent at the returned
   * resourceVersion. As kube does, `remainingItemCount` is given only when every object
   * counts (no selector): storage counts after a first page, and the continue token
   * carries that count on, so a continued page knows its own from the one before.
   */
  list(namespace: string | undefined, options: ListOptions): Promise<ListPage> {
    return this.#list((request) => this.#storage.list(namespace, request), options);
  }

  /** As {@link list}, each item the JSON text of the object (storage's `listJson`): for a JSON response in the storage version. */
  listJson(namespace: string | undefined, options: ListOptions): Promise<ListPage<string>> {
    return this.#list((request) => this.#storage.listJson(namespace, request), options);
  }

  async #list<Item>(list: (request: ListRequest) => Promise<ListResult<Item>>, options: ListOptions): Promise<ListPage<Item>> {
    const predicate = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
    const everyObject = !options.labelSelector?.length && !options.fieldSelector?.length;
    const position = continuePositionOf(options);
    const request: ListRequest = {
      predicate,
      limit: options.limit,
      countRemaining: everyObject && !position,
      ...(position ? { resourceVersion: position.resourceVersion, after: { namespace: position.namespace, name: position.name } } : snapshotOf(options)),
    };
    try {
      const result = await list(request);
      const carried = everyObject && position?.remainingItemCount !== undefined ? position.remainingItemCount - result.items.length : undefined;
      const remaining = result.continueAfter ? (result.remainingItemCount ?? carried) : undefined;
      const remainingItemCount = remaining !== undefined && remaining > 0 ? remaining : undefined;
      return {
        items: result.items,
        resourceVersion: result.resourceVersion,
        ...(result.continueAfter
          ? {
              continue: encodeContinue({
                resourceVersion: result.resourceVersion,
                ...result.continueAfter,
                ...(remainingItemCount ? { remainingItemCount } : {}),
              }),
            }
          : {}),
        ...(remainingItemCount ? { remainingItemCount } : {}),
      };
    } catch (error) {
      if (position && error instanceof StorageError && error.code === 'TooOld') {
        throw continueExpired(encodeContinue({ namespace: position.namespace, name: position.name }));
      }
      throw interpretReadError(error, this.#gr, '', 'list');
    }
  }

  /**
   * update, as kube's `Store.Update`: `objInfo` computes the new object from the
   * current one with no lock held, then BeforeUpdate (or BeforeCreate, when there is no
   * object and `forceAllowCreate`) and the validating admission run, and the write is a
   * compare-and-swap on the resourceVersion read, retried from the top when it lost.
   * An update that removes the last finalizer of an object being deleted removes it.
   */
  async update(
    key: ObjectKey,
    objInfo: ObjectInfo,
    createValidation: ValidateObject,
    updateValidation: ValidateObjectUpdate,
    forceAllowCreate: boolean,
    options: StoreWriteOptions,
  ): Promise<UpdateOutcome> {
    const decide = async (current: StoredObject | undefined): Promise<UpdateDecision> => {
      if (current === undefined) {
        if (!forceAllowCreate) throw notFound(this.#gr, key.name);
        const created = this.#beforeCreate(await objInfo(undefined), key.namespace, false, options);
        await createValidation(created);
        return { action: 'write', object: created };
      }
      const uid = options.preconditions?.uid;
      if (uid && uid !== current.metadata.uid) throw updatePreconditionFailed(this.#gr, key.name, this.#etcdKey(key), uid, current.metadata.uid);
      const prepared = this.#beforeUpdate(await objInfo(current), current, key, options);
      await updateValidation(prepared, current);
      if (deletionComplete(prepared)) return { action: 'remove', object: prepared, resourceVersion: current.metadata.resourceVersion };
      return { action: 'write', object: prepared };
    };
    // The decision on the object storage last read: storage writes what it says to write, and leaves the object it says to remove.
    let decision = undefined as UpdateDecision | undefined;
    const tryUpdate = async (current: StoredObject | undefined): Promise<KubeObject | undefined> => {
      decision = await decide(current);
      return decision.action === 'write' ? decision.object : undefined;
    };
    const storageKey = this.#storageKey(key);
    try {
      if (options.dryRun) {
        const current = await this.#storage.get(storageKey).catch((error: unknown) => {
          if (forceAllowCreate && error instanceof StorageError && error.code === 'KeyNotFound') return undefined;
          throw error;
        });
        const object = await tryUpdate(current);
        if (object) return { object: object as StoredObject, created: current === undefined };
      } else {
        const result = await this.#storage.guaranteedUpdate(storageKey, tryUpdate, { ignoreNotFound: forceAllowCreate, origin: options.origin });
        if (decision?.action !== 'remove') return { object: result.object, created: result.created };
      }
    } catch (error) {
      throw interpretStorageError(error, this.#gr, key.name);
    }
    // The last finalizer of an object being deleted is gone: remove it, as kube's store does, instead of writing it.
    // As there, the answer is the object the update made (without its finalizers), not the last one stored.
    // The DELETED event records the update's origin: that request is what removed it.
    const removal = decision as Extract<UpdateDecision, { action: 'remove' }>;
    if (!options.dryRun) {
      await this.#call(key.name, () => this.#storage.delete(storageKey, (current) => this.#sameVersion(current, removal.resourceVersion), options.origin));
    }
    return { object: removal.object as StoredObject, created: false };
  }

  /** The key kube-apiserver would keep the object under in etcd, which its storage errors name. */
  #etcdKey(key: ObjectKey): string {
    const { namespace, name } = this.#storageKey(key);
    return `/registry/${this.resource.group}/${this.resource.plural}/${namespace ? `${namespace}/` : ''}${name}`;
  }

  /** A conflict unless `current` is still at `resourceVersion`. */
  #sameVersion(current: StoredObject, resourceVersion: string): void {
    if (current.metadata.resourceVersion !== resourceVersion) throw conflict(this.#gr, current.metadata.name, optimisticLockMessage);
  }

  /**
   * delete: checks preconditions and the validating admission of the deletion, then
   * removes the object, or marks it while finalizers hold it; returns its last state
   * and whether it is gone. `origin` is recorded with the removal, or with the mark.
   */
  async delete(key: ObjectKey, options: DeleteOptions, deleteValidation: ValidateObject = () => {}, origin?: WriteOrigin): Promise<DeleteOutcome> {
    const check = async (current: StoredObject): Promise<void> => {
      // As kube's rest.BeforeDelete: a precondition sent, even "", must match.
      const { uid, resourceVersion } = options.preconditions ?? {};
      const { group, kind } = this.resource;
      if (uid != null && uid !== current.metadata.uid) throw deletePreconditionFailed(group, kind, key.name, 'UID', uid, current.metadata.uid);
      if (resourceVersion != null && resourceVersion !== current.metadata.resourceVersion) {
        throw deletePreconditionFailed(group, kind, key.name, 'ResourceVersion', resourceVersion, current.metadata.resourceVersion);
      }
      await deleteValidation(current);
    };
    const timestamp = now();
    const decide = async (current: StoredObject): Promise<DeletionDecision> => {
      await check(current);
      return deletionDecision(current, options, timestamp);
    };
    if (options.dryRun) {
      const current = await this.get(key);
      const decision = await decide(current);
      return decision.action === 'mark' ? { object: decision.object as StoredObject, deleted: false } : { object: current, deleted: true };
    }
    const storageKey = this.#storageKey(key);
    // Most objects have no finalizers: try to remove at once, and mark the others in a second step.
    for (let attempt = 1; ; attempt++) {
      // The decision on the object the marking step last read: storage writes a mark, and leaves an object to remove.
      let decision = undefined as DeletionDecision | undefined;
      try {
        const removed = await this.#storage.delete(storageKey, async (current) => (await decide(current)).action === 'remove', origin);
        if (removed) return { object: removed, deleted: true };
        const marked = await this.#storage.guaranteedUpdate(
          storageKey,
          async (current) => {
            if (!current) throw notFound(this.#gr, key.name);
            decision = await decide(current);
            return decision.action === 'mark' ? decision.object : undefined;
          },
          { origin },
        );
        if (decision?.action === 'mark') return { object: marked.object, deleted: false };
      } catch (error) {
        throw interpretStorageError(error, this.#gr, key.name);
      }
      // The finalizers went away in between: remove it after all, unless it keeps changing.
      if (attempt >= deleteAttempts) throw conflict(this.#gr, key.name, optimisticLockMessage);
    }
  }

  /**
   * deletecollection: deletes every object the selection lists, as kube's store
   * does, one by one; objects deleted concurrently are skipped. Answers the list as it
   * was read, before any deletion (as kube's does): an object a finalizer holds is
   * answered as it was, not marked.
   */
  /**
   * deletecollection, a chunk of `chunk` objects at a time from one snapshot of the
   * selection: each chunk is deleted (or marked for deletion), then yielded, so the
   * answer lists what was deleted, as listed before, without the collection in memory.
   */
  async *deleteCollection(
    namespace: string | undefined,
    selection: ListOptions,
    options: DeleteOptions,
    deleteValidation: ValidateObject | undefined,
    chunk: number,
    origin?: WriteOrigin,
  ): AsyncGenerator<ListPage> {
    for await (const page of this.listInChunks(namespace, { ...selection, limit: undefined, continue: undefined }, chunk)) {
      for (const item of page.items) {
        try {
          await this.delete({ namespace: item.metadata.namespace ?? '', name: item.metadata.name }, options, deleteValidation, origin);
        } catch (error) {
          if (!(error instanceof StatusError && error.code === 404)) throw error;
        }
      }
      yield page;
    }
  }

  /**
   * watch: with `sendInitialEvents=true`, the current objects first (not older than
   * resourceVersion), then a bookmark ending them; with resourceVersion unset or "0"
   * (and no sendInitialEvents), the current objects as ADDED; otherwise every change
   * after that resourceVersion, or after now.
   */
  async watch(namespace: string | undefined, options: WatchOptions): Promise<RegistryWatch> {
    const predicate = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
    const watch = async (from: string | undefined) =>
      translatedWatcher(this.#gr, await this.#storage.watch(namespace, from, predicate, { bookmarkIntervalMs: options.bookmarkIntervalMs }));
    const rv = options.resourceVersion;
    const unversioned = rv === '' || rv === '0';
    return this.#call('', async () => {
      if (options.sendInitialEvents === true || (options.sendInitialEvents === undefined && unversioned)) {
        // A consistent read when unversioned, else one not older than rv; its first page fixes the snapshot the watch follows.
        const snapshot: ListOptions = { ...predicate, resourceVersion: unversioned ? '' : rv, resourceVersionMatch: 'NotOlderThan' };
        const pages = this.listInChunks(namespace, snapshot, options.initialEventsPageSize ?? initialEventsPageSize);
        const first = await pages.next();
        if (first.done === true) throw new Error('a list has a first page');
        const { resourceVersion, items } = first.value;
        const end = options.sendInitialEvents ? { initialEventsEnd: resourceVersion } : {};
        async function* initial(): AsyncGenerator<StoredObject> {
          yield* items;
          for await (const page of pages) yield* page.items;
        }
        return { initial: initial(), ...end, watcher: await watch(resourceVersion) };
      }
      return { initial: noObjects(), watcher: await watch(unversioned ? undefined : rv) };
    });
  }
}
