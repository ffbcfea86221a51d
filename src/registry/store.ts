/**
 * The generic store: create, get, list, update, patch, delete and watch for any
 * resource, driven by the resource's strategy and schema. One Store per resource.
 */
import { randomUUID } from 'node:crypto';
import type { ApiResource } from '../apis/api-resource.js';
import { decodeContinue, encodeContinue, type ContinuePosition } from '../machinery/continue-token.js';
import { badRequest, conflict, continueExpired, invalid, optimisticLockMessage, type FieldError, type GroupResource } from '../machinery/errors.js';
import { generateName } from '../machinery/names.js';
import { applyJsonPatch, applyMergePatch, type PatchType } from '../machinery/patch.js';
import { applyStrategicMergePatch } from '../machinery/strategic-merge-patch.js';
import { objectWithScale, scaleOf, scaleSchemaName, type Scale, type ScalePaths } from '../machinery/scale.js';
import { dropNulls } from '../machinery/json-schema.js';
import { applyPatch } from '../machinery/managed-fields/apply.js';
import { fieldPath } from '../machinery/managed-fields/field-path.js';
import { FieldSet } from '../machinery/managed-fields/field-set.js';
import { withManagedFields } from '../machinery/managed-fields/managed-fields.js';
import { updateManagedFields } from '../machinery/managed-fields/update.js';
import { compactObjectMeta, deepCopy, isPlainObject, type KubeObject, type StoredObject } from '../machinery/object.js';
import { StatusError } from '../machinery/status.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../machinery/object-meta-validation.js';
import type { ListRequest, ResourceStorage, StorageWatcher } from '../storage/object-store.js';
import { deletionComplete, pendingDeletion } from './deletion.js';
import { StorageError } from '../storage/storage-error.js';
import type { LogReader } from './log-reader.js';
import { ObjectLog } from './object-log.js';
import type { ApplyOptions, DeleteOptions, ListOptions, LogOptions, Subresource, WatchOptions, WriteOptions, WriteResult } from './request-options.js';
import type { SchemaValidator } from './schema-validator.js';
import { toApiError } from './storage-errors.js';

/** A patch and its type, as a PATCH request carries them. */
export interface ObjectPatch {
  readonly type: PatchType;
  readonly patch: unknown;
}

/** Where an object is addressed: its namespace ('' when cluster-scoped) and name. */
export interface ObjectKey {
  readonly namespace: string;
  readonly name: string;
}

/** A started watch: the synthetic ADDED objects first, then the storage stream. */
export interface RegistryWatch {
  readonly initial: readonly StoredObject[];
  /**
   * With `sendInitialEvents=true`: the resourceVersion of the initial state, sent in
   * the bookmark that ends it.
   */
  readonly initialEventsEnd?: string;
  readonly watcher: StorageWatcher;
}

/** A list result: one page, and what a client needs to fetch the next. */
export interface ListPage {
  readonly items: readonly StoredObject[];
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

/** How a list's `resourceVersion` and `resourceVersionMatch` choose the snapshot it reads. */
function snapshotOf(options: ListOptions): Pick<ListRequest, 'resourceVersion' | 'notOlderThan'> {
  const rv = options.resourceVersion;
  if (rv === '' || rv === '0') return {};
  // For legacy reasons kube reads a paged list without resourceVersionMatch at exactly that version.
  const exact = options.resourceVersionMatch === 'Exact' || (options.resourceVersionMatch === undefined && options.limit !== undefined);
  return exact ? { resourceVersion: rv } : { notOlderThan: rv };
}

/** `target` with the status of `source` (or none, when `source` has none). */
function withStatusOf(target: KubeObject, source: KubeObject): KubeObject {
  if (source.status === undefined) delete target.status;
  else target.status = source.status;
  return target;
}

/** Where a continued list resumes; undefined for a first page. */
function continuePositionOf(options: ListOptions): ContinuePosition | undefined {
  if (!options.continue) return undefined;
  if (options.resourceVersion !== '' && options.resourceVersion !== '0') {
    throw badRequest('specifying resource version is not allowed when using continue');
  }
  return decodeContinue(options.continue);
}

const generateNameAttempts = 8;
const deleteAttempts = 3;
const applyAttempts = 3;
// kube names a manager after the User-Agent; a request with neither gets this.
const unknownManager = 'unknown';

/** Thrown inside an update whose result must be removed instead (the last finalizer of a deleted object went). */
class RemoveInstead extends Error {
  constructor(
    readonly resourceVersion: string,
    readonly object: KubeObject,
  ) {
    super('remove instead of update');
  }
}

/** Thrown inside a delete when finalizers hold the object back: it is marked instead. */
class MarkInstead extends Error {
  constructor() {
    super('mark for deletion instead of removing');
  }
}

/** What kube writes in creationTimestamp: RFC 3339 in seconds. */
function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The generic store of one resource. */
export class Store {
  readonly resource: ApiResource;
  readonly #storage: ResourceStorage;
  readonly #validator: SchemaValidator;
  readonly #gr: GroupResource;
  readonly #apiVersion: string;
  readonly #log: ObjectLog | undefined;

  constructor(resource: ApiResource, storage: ResourceStorage, validator: SchemaValidator) {
    this.resource = resource;
    this.#storage = storage;
    this.#validator = validator;
    this.#gr = { group: resource.group, resource: resource.plural };
    this.#apiVersion = `${resource.group}/${resource.versions[0]!.version}`;
    this.#log = resource.subresources.log && new ObjectLog(resource, resource.subresources.log, storage);
  }

  async #call<T>(name: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw toApiError(error, this.#gr, name);
    }
  }

  /** Checks apiVersion/kind/namespace/name of a request body against the URL; 400 when they differ. */
  #checkIdentity(body: KubeObject, key: ObjectKey | { namespace: string; name?: undefined }): void {
    const kind = this.resource.kind;
    const apiVersion = this.#apiVersion;
    if (!body.kind) throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(body).slice(0, 200)}'`);
    if (!body.apiVersion) throw badRequest(`Object 'apiVersion' is missing in '${JSON.stringify(body).slice(0, 200)}'`);
    if (body.apiVersion !== apiVersion) {
      throw badRequest(`the API version in the data (${body.apiVersion}) does not match the expected API version (${apiVersion})`);
    }
    if (body.kind !== kind) throw badRequest(`${body.kind} in version "${apiVersion.split('/')[1]}" cannot be handled as a ${kind}: the kind in the data does not match the expected kind ${kind}`);
    if (!isPlainObject(body.metadata) && body.metadata !== undefined) throw badRequest('metadata must be an object');
    const ns = body.metadata?.namespace;
    if (this.resource.namespaced) {
      if (ns && ns !== key.namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
    } else if (ns) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    if (key.name !== undefined && body.metadata?.name && body.metadata.name !== key.name) {
      throw badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${key.name})`);
    }
  }

  /** `object` as kube's typed decoding leaves it: nulls of declared fields unset (so they are defaulted). */
  #decoded(object: KubeObject): KubeObject {
    dropNulls(object, this.#validator.schema(this.resource.versions[0]!.schemaName), this.#validator.resolve);
    return object;
  }

  /** Schema, metadata and strategy validation; prunes unknown fields; returns the warnings. */
  #validate(object: KubeObject, old: KubeObject | undefined, options: WriteOptions): string[] {
    const { errors: schemaErrors, unknownFields } = this.#validator.validate(this.resource.versions[0]!.schemaName, object);
    const problems = [...(options.duplicateFields ?? []).map((f) => `duplicate field "${f}"`), ...unknownFields.map((f) => `unknown field "${f}"`)];
    if (problems.length && options.fieldValidation === 'Strict') {
      throw badRequest(`${this.resource.kind} in version "${this.resource.versions[0]!.version}" cannot be handled as a ${this.resource.kind}: strict decoding error: ${problems.join(', ')}`);
    }
    let errors: FieldError[] = [...schemaErrors, ...validateObjectMeta(object.metadata ?? {}, this.resource.namespaced)];
    if (errors.length === 0) errors = old ? this.resource.strategy.validateUpdate(object, old) : this.resource.strategy.validate(object);
    if (errors.length) throw invalid(this.resource.kind, this.resource.group, object.metadata?.name ?? '', errors);
    return options.fieldValidation === 'Warn' ? problems : [];
  }

  /** create: system metadata → generateName → namespace → prepareForCreate → validate → storage. */
  create(namespace: string, body: KubeObject, options: WriteOptions): Promise<WriteResult<StoredObject>> {
    return this.#create(namespace, body, options, 'Update');
  }

  /** create, recording the creator's fields as an Update, or keeping the managedFields an apply computed. */
  async #create(namespace: string, body: KubeObject, options: WriteOptions, operation: 'Update' | 'Apply'): Promise<WriteResult<StoredObject>> {
    this.#checkIdentity(body, { namespace });
    const generate = !body.metadata?.name && body.metadata?.generateName;
    for (let attempt = 1; ; attempt++) {
      const object = this.#decoded(deepCopy(body));
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
      object.metadata = meta;
      // With the status subresource, status is the controller's to write, through /status.
      if (this.resource.subresources.status) delete object.status;
      const prepared = this.resource.strategy.prepareForCreate(object);
      prepared.metadata = compactObjectMeta(prepared.metadata!);
      const warnings = this.#validate(prepared, undefined, options);
      if (operation === 'Update') this.#recordUpdate(prepared, undefined, options);
      const name = prepared.metadata!.name!;
      if (options.dryRun) {
        return { object: prepared as StoredObject, warnings };
      }
      try {
        const stored = await this.#storage.create({ namespace: this.#keyNamespace(namespace), name }, prepared);
        return { object: stored, warnings };
      } catch (error) {
        // A generated name that collides is retried, as kube's RetryGenerateName does.
        if (generate && attempt < generateNameAttempts && error instanceof StorageError && error.code === 'KeyExists') continue;
        throw toApiError(error, this.#gr, name);
      }
    }
  }

  #keyNamespace(namespace: string): string {
    return this.resource.namespaced ? namespace : '';
  }

  /** get */
  get(key: ObjectKey): Promise<StoredObject> {
    return this.#call(key.name, () => this.#storage.get({ namespace: this.#keyNamespace(key.namespace), name: key.name }));
  }

  /** list: one page of the snapshot the options select, consistent at the returned resourceVersion. */
  async list(namespace: string | undefined, options: ListOptions): Promise<ListPage> {
    const predicate = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
    // As kube does, the remaining count is only given when every object counts.
    const countRemaining = !options.labelSelector?.length && !options.fieldSelector?.length;
    const position = continuePositionOf(options);
    const request: ListRequest = {
      predicate,
      limit: options.limit,
      countRemaining,
      ...(position ? { resourceVersion: position.resourceVersion, after: { namespace: position.namespace, name: position.name } } : snapshotOf(options)),
    };
    try {
      const result = await this.#storage.list(namespace, request);
      return {
        items: result.items,
        resourceVersion: result.resourceVersion,
        ...(result.continueAfter ? { continue: encodeContinue({ resourceVersion: result.resourceVersion, ...result.continueAfter }) } : {}),
        ...(result.remainingItemCount ? { remainingItemCount: result.remainingItemCount } : {}),
      };
    } catch (error) {
      if (position && error instanceof StorageError && error.code === 'TooOld') {
        throw continueExpired(encodeContinue({ namespace: position.namespace, name: position.name }));
      }
      throw toApiError(error, this.#gr, '');
    }
  }

  /**
   * The update path shared by update and patch: `mutate` computes the new object
   * from the current one; optimistic concurrency on the result's resourceVersion.
   */
  async #update(
    key: ObjectKey,
    mutate: (current: StoredObject) => KubeObject,
    options: WriteOptions,
    subresource?: Subresource,
    operation: 'Update' | 'Apply' = 'Update',
  ): Promise<WriteResult<StoredObject>> {
    let warnings: string[] = [];
    const tryUpdate = (current: StoredObject): KubeObject => {
      const next = this.#withStatusPolicy(this.#decoded(deepCopy(mutate(current))), current, subresource);
      const immutable = validateObjectMetaUpdate(next.metadata ?? {}, current.metadata);
      if (immutable.length) throw invalid(this.resource.kind, this.resource.group, key.name, immutable);
      this.#checkIdentity(next, key);
      const sent = next.metadata?.resourceVersion;
      if (sent && sent !== current.metadata.resourceVersion) {
        throw conflict(this.#gr, key.name, optimisticLockMessage);
      }
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
      next.metadata = meta;
      const prepared = this.resource.strategy.prepareForUpdate(next, current);
      const generation = current.metadata.generation ?? 1;
      prepared.metadata = {
        ...compactObjectMeta(prepared.metadata ?? {}),
        generation: this.resource.strategy.generationChanged(prepared, current) ? generation + 1 : generation,
      };
      warnings = this.#validate(prepared, current, options);
      if (operation === 'Update') this.#recordUpdate(prepared, current, options, subresource);
      if (deletionComplete(prepared)) throw new RemoveInstead(current.metadata.resourceVersion, prepared);
      return prepared;
    };
    const storageKey = { namespace: this.#keyNamespace(key.namespace), name: key.name };
    try {
      if (options.dryRun) return { object: tryUpdate(await this.get(key)) as StoredObject, warnings };
      // Without ignoreNotFound, storage always passes the current object.
      const result = await this.#storage.guaranteedUpdate(storageKey, (current) => tryUpdate(current!));
      return { object: result.object, warnings };
    } catch (error) {
      if (!(error instanceof RemoveInstead)) throw toApiError(error, this.#gr, key.name);
      // The last finalizer of an object being deleted is gone: remove it, as kube's store does, instead of writing it.
      if (options.dryRun) return { object: error.object as StoredObject, warnings };
      const removed = await this.#call(key.name, () => this.#storage.delete(storageKey, (current) => this.#sameVersion(current, error.resourceVersion)));
      return { object: removed, warnings };
    }
  }

  /** What field ownership is computed against: the kind's schema, and the fields the endpoint resets. */
  #ownership(subresource: Subresource | undefined) {
    const version = this.resource.versions[0]!;
    // As for custom resources: the main resource resets status, /status everything else; /scale writes only replicas.
    const resetFields = !this.resource.subresources.status
      ? undefined
      : subresource === 'status'
        ? FieldSet.of([fieldPath('spec'), fieldPath('metadata')])
        : subresource === 'scale'
          ? FieldSet.of([fieldPath('status'), fieldPath('metadata')])
          : FieldSet.of([fieldPath('status')]);
    return {
      schema: this.#validator.schema(version.schemaName),
      resolve: this.#validator.resolve,
      apiVersion: this.#apiVersion,
      now: now(),
      subresource,
      resetFields,
    };
  }

  /** Records the fields a create, update or patch changed as owned by its field manager (an `Update` entry). */
  #recordUpdate(object: KubeObject, old: StoredObject | undefined, options: WriteOptions, subresource?: Subresource): void {
    const entries = updateManagedFields({ ...this.#ownership(subresource), old, updated: object, manager: options.fieldManager ?? unknownManager });
    object.metadata = withManagedFields(object, entries).metadata;
  }

  /**
   * apply (server-side apply): merges `applied` as the field manager's whole intent,
   * creating the object when it does not exist; 409 when it would change fields
   * other managers own, unless `force`.
   */
  async apply(key: ObjectKey, applied: KubeObject, options: ApplyOptions, subresource?: 'status'): Promise<WriteResult<StoredObject> & { created: boolean }> {
    this.#checkIdentity(applied, key);
    const request = (live: StoredObject | undefined) => ({
      ...this.#ownership(subresource),
      live,
      applied: { ...applied, metadata: { ...applied.metadata, name: key.name } },
      manager: options.fieldManager,
      force: options.force,
    });
    for (let attempt = 1; ; attempt++) {
      const live = await this.get(key).catch((error: unknown) => {
        if (error instanceof StatusError && error.code === 404 && subresource === undefined) return undefined;
        throw error;
      });
      if (live) {
        const result = await this.#update(key, (current) => applyPatch(request(current)).object, options, subresource, 'Apply');
        return { ...result, created: false };
      }
      try {
        return { ...(await this.#create(key.namespace, applyPatch(request(undefined)).object, options, 'Apply')), created: true };
      } catch (error) {
        // Created by someone else in between: apply to theirs.
        if (!(error instanceof StatusError && error.reason === 'AlreadyExists' && attempt < applyAttempts)) throw error;
      }
    }
  }

  /** A conflict unless `current` is still at `resourceVersion`. */
  #sameVersion(current: StoredObject, resourceVersion: string): void {
    if (current.metadata.resourceVersion !== resourceVersion) throw conflict(this.#gr, current.metadata.name, optimisticLockMessage);
  }

  /**
   * With the status subresource, a write through `/status` takes only `.status`
   * from what was sent, and a write through the main resource keeps the stored
   * `.status`, as kube does for custom resources.
   */
  #withStatusPolicy(submitted: KubeObject, current: StoredObject, subresource: Subresource | undefined): KubeObject {
    if (!this.resource.subresources.status) return submitted;
    if (subresource !== 'status') return withStatusOf(submitted, current);
    this.#checkIdentity(submitted, { namespace: current.metadata.namespace ?? '', name: current.metadata.name });
    const next = withStatusOf(deepCopy(current), submitted);
    // The resourceVersion sent is still the write's precondition; managedFields an apply computed are kept, as kube's status strategy keeps them.
    next.metadata = { ...next.metadata, resourceVersion: submitted.metadata?.resourceVersion, managedFields: submitted.metadata?.managedFields };
    return next;
  }

  /** update (PUT): replaces the object (or its status); a stale `metadata.resourceVersion` is a 409. */
  update(key: ObjectKey, body: KubeObject, options: WriteOptions, subresource?: 'status'): Promise<WriteResult<StoredObject>> {
    this.#checkIdentity(body, key);
    return this.#update(key, () => body, options, subresource);
  }

  /** patch: applies a JSON, merge or strategic merge patch to the current object, then updates like PUT. */
  patch(key: ObjectKey, patch: ObjectPatch, options: WriteOptions, subresource?: 'status'): Promise<WriteResult<StoredObject>> {
    return this.#update(key, (current) => this.#patched(current, patch, this.resource.versions[0]!.schemaName), options, subresource);
  }

  /** `target` patched; strategic merge follows the patch metadata of component `schemaName`. */
  #patched<T extends KubeObject>(target: T, { type, patch }: ObjectPatch, schemaName: string): T {
    switch (type) {
      case 'json':
        return applyJsonPatch(target, patch);
      case 'merge':
        return applyMergePatch(target, patch);
      case 'strategic':
        return applyStrategicMergePatch(target, patch, this.#validator.schema(schemaName), this.#validator.resolve);
    }
  }

  #scalePaths(): ScalePaths {
    const paths = this.resource.subresources.scale;
    if (!paths) throw new Error(`${this.resource.plural} has no scale subresource`);
    return paths;
  }

  /** The object's autoscaling/v1 Scale. */
  async getScale(key: ObjectKey): Promise<Scale> {
    return scaleOf(await this.get(key), this.#scalePaths());
  }

  /** Updates replicas from a Scale; its `metadata.resourceVersion`, when sent, is a precondition (409). */
  updateScale(key: ObjectKey, scale: unknown, options: WriteOptions): Promise<WriteResult<Scale>> {
    return this.#writeScale(key, () => scale, options);
  }

  /** Patches the object's Scale (JSON, merge or strategic merge) and updates replicas from the result. */
  patchScale(key: ObjectKey, patch: ObjectPatch, options: WriteOptions): Promise<WriteResult<Scale>> {
    return this.#writeScale(key, (current) => this.#patched(current, patch, scaleSchemaName), options);
  }

  async #writeScale(key: ObjectKey, scaleAfter: (current: Scale) => unknown, options: WriteOptions): Promise<WriteResult<Scale>> {
    const paths = this.#scalePaths();
    const result = await this.#update(
      key,
      (current) => {
        const scale = scaleAfter(scaleOf(current, paths));
        const sent = isPlainObject(scale) && isPlainObject(scale.metadata) ? scale.metadata.resourceVersion : undefined;
        if (sent && sent !== current.metadata.resourceVersion) throw conflict(this.#gr, key.name, optimisticLockMessage);
        return objectWithScale(current, scale, paths);
      },
      options,
      'scale',
    );
    return { object: scaleOf(result.object, paths), warnings: result.warnings };
  }

  #objectLog(): ObjectLog {
    if (!this.#log) throw new Error(`${this.resource.plural} has no log subresource`);
    return this.#log;
  }

  /** Appends lines to the object's log, in the stream named (the `log` subresource's POST). */
  appendLog(key: ObjectKey, stream: string | undefined, lines: readonly string[]): Promise<void> {
    return this.#objectLog().append({ namespace: this.#keyNamespace(key.namespace), name: key.name }, stream, lines);
  }

  /** Opens the object's log for reading (the `log` subresource's GET); errors are thrown before any line is read. */
  openLog(key: ObjectKey, options: LogOptions): Promise<LogReader> {
    return this.#objectLog().open({ namespace: this.#keyNamespace(key.namespace), name: key.name }, options);
  }

  /** delete: checks preconditions and removes the object; returns its last state. */
  async delete(key: ObjectKey, options: DeleteOptions): Promise<StoredObject> {
    const check = (current: StoredObject): void => {
      const pre = options.preconditions;
      if (pre?.uid && pre.uid !== current.metadata.uid) {
        throw conflict(this.#gr, key.name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`);
      }
      if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
        throw conflict(
          this.#gr,
          key.name,
          `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`,
        );
      }
    };
    const timestamp = now();
    if (options.dryRun) {
      const current = await this.get(key);
      check(current);
      return (pendingDeletion(current, options, timestamp) as StoredObject | undefined) ?? current;
    }
    const storageKey = { namespace: this.#keyNamespace(key.namespace), name: key.name };
    // Most objects have no finalizers: try to remove at once, and mark the others in a second step.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#storage.delete(storageKey, (current) => {
          check(current);
          if (pendingDeletion(current, options, timestamp)) throw new MarkInstead();
        });
      } catch (error) {
        if (!(error instanceof MarkInstead)) throw toApiError(error, this.#gr, key.name);
      }
      try {
        // Without ignoreNotFound, storage always passes the current object.
        const marked = await this.#storage.guaranteedUpdate(storageKey, (found) => {
          const current = found!;
          check(current);
          const pending = pendingDeletion(current, options, timestamp);
          if (!pending) throw new MarkInstead();
          return pending;
        });
        return marked.object;
      } catch (error) {
        if (!(error instanceof MarkInstead)) throw toApiError(error, this.#gr, key.name);
        // The finalizers went away in between: remove it after all, unless it keeps changing.
        if (attempt >= deleteAttempts) throw conflict(this.#gr, key.name, optimisticLockMessage);
      }
    }
  }

  /**
   * deletecollection: deletes every object the selection lists, as kube's store
   * does, one by one; objects deleted concurrently are skipped.
   */
  async deleteCollection(namespace: string, selection: ListOptions, options: DeleteOptions): Promise<ListPage> {
    const list = await this.list(namespace, { ...selection, limit: undefined, continue: undefined });
    const items: StoredObject[] = [];
    for (const item of list.items) {
      try {
        items.push(await this.delete({ namespace: item.metadata.namespace ?? '', name: item.metadata.name }, options));
      } catch (error) {
        if (!(error instanceof StatusError && error.code === 404)) throw error;
      }
    }
    return { items, resourceVersion: list.resourceVersion };
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
      this.#translated(await this.#storage.watch(namespace, from, predicate, { bookmarkIntervalMs: options.bookmarkIntervalMs }));
    const rv = options.resourceVersion;
    const unversioned = rv === '' || rv === '0';
    return this.#call('', async () => {
      if (options.sendInitialEvents === true || (options.sendInitialEvents === undefined && unversioned)) {
        const list = await this.#storage.list(namespace, { predicate, notOlderThan: unversioned ? undefined : rv });
        const end = options.sendInitialEvents ? { initialEventsEnd: list.resourceVersion } : {};
        return { initial: list.items, ...end, watcher: await watch(list.resourceVersion) };
      }
      return { initial: [], watcher: await watch(unversioned ? undefined : rv) };
    });
  }

  /** A watcher whose storage errors (compaction, outage) arrive as API errors. */
  #translated(watcher: StorageWatcher): StorageWatcher {
    const gr = this.#gr;
    return {
      stop: () => watcher.stop(),
      async *[Symbol.asyncIterator]() {
        try {
          yield* watcher;
        } catch (error) {
          throw toApiError(error, gr, '');
        }
      },
    };
  }
}
