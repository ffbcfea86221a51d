/**
 * The garbage collector of a standalone Cairn, following kube's
 * (`pkg/controller/garbagecollector`): the registry marks a deletion (the
 * `foregroundDeletion` or `orphan` finalizer and a deletionTimestamp, or removes the
 * owner at once in background), and this finishes it. It is a client of the API like
 * any other, and holds no structure that grows with the number of objects: where
 * kube keeps a graph of every object, this asks the server, with the field selectors
 * every Cairn kind has (`metadata.ownerReferences.uid=U`, `metadata.finalizers=F`,
 * served by indexes), a page at a time. Watch events (one metadata watch per served
 * kind, by a Reflector whose sink caches nothing) say what to look at, as kube's
 * attemptToDelete and attemptToOrphan queues do —
 *
 * - an object with ownerReferences, added or changed, is checked: its owners are read
 *   live; if all are gone or going it is deleted (its own finalizers pick the
 *   propagation policy), if some are left it loses only the references to the others;
 * - an owner that is gone, or being deleted with `foregroundDeletion` or `orphan`, has
 *   its dependents listed page by page by its uid: each is checked (foreground and
 *   background) or lets go of the owner (orphan), and the owner then loses its
 *   finalizer (foreground: once a query finds no dependent with `blockOwnerDeletion`);
 * - a dependent that goes makes its owners look again whether they can go.
 *
 * At start, and whenever a watch could not be resumed (410) or events were dropped
 * because the queue was full, a catch-up pass pages through every object that has
 * owners and every object carrying the two finalizers, checking each. In memory: the
 * queue (at most `maxQueued` keys, each an object's location), one page per worker
 * and per catch-up, and the served kinds — nothing proportional to the stored objects.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';
import { isConflict, isNotFound } from '../../machinery/kubeclient/api-error.js';
import type { ListWatch } from '../../machinery/kubeclient/list-watch.js';
import { Reflector, type ReflectorSink } from '../../machinery/kubeclient/reflector.js';
import type { CairnClient } from '../../client/cairn-client.js';
import { foregroundFinalizer, orphanFinalizer } from '../../machinery/meta/finalizers.js';
import { finalizersField, ownerUidsField } from '../../machinery/meta/metadata-fields.js';
import { escapeFieldValue } from '../../machinery/selectors/field-selector.js';
import type { ControllerLogger } from '../controller.js';
import { WorkQueue } from '../work-queue.js';
import { AbsentOwnerCache } from './absent-owner-cache.js';
import { classifyReferences, decide, unblocked, withoutReferences, type OwnerState } from './decisions.js';
import { MetadataClient, type MetadataObject, type MetadataPatch, type ObjectLocation, type ServedResource } from './metadata-client.js';
import { ownerLocation, ownerState } from './owners.js';

/** What the collector counts as it works (the server turns them into metrics). */
export interface GarbageCollectorCounters {
  /** A dependent deleted because its owners are gone or going. */
  deleted(resource: string): void;
  /** A dependent whose reference to an owner deleted with `orphan` was removed. */
  orphaned(resource: string): void;
}

/** Options of the garbage collector. */
export interface GarbageCollectorOptions {
  readonly logger?: ControllerLogger;
  readonly counters?: GarbageCollectorCounters;
  /** How long the server keeps each watch stream open before the informers reopen it, in seconds (server's choice by default). */
  readonly watchTimeoutSeconds?: number;
  /** The wait before an object whose work failed is looked at again, in ms (1 s by default). */
  readonly retryDelayMs?: number;
  /** How many objects each page of the collector's lists holds (500 by default, as client-go's pager). */
  readonly listPageSize?: number;
  /** The most keys the queue holds; past it, events are dropped and a catch-up pass follows (10,000 by default). */
  readonly maxQueued?: number;
  /** How many owners known to be gone the collector remembers, so their dependents need not read them (1,000 by default). */
  readonly absentOwners?: number;
}

/** A running garbage collector. */
export interface RunningGarbageCollector {
  /** Resolves once every served kind is watched, the first catch-up pass is done and the workers run. */
  readonly synced: Promise<void>;
  /** How many catch-up passes have finished. */
  catchUps(): number;
  /** Whether a catch-up pass is under way. */
  catchingUp(): boolean;
  /** How many keys wait in each queue: objects to check, and owners whose dependents to look at. */
  queueDepths(): { readonly attemptToDelete: number; readonly attemptToOrphan: number };
  /** Stops watching, lets the work in progress finish, and resolves when everything has stopped. */
  stop(): Promise<void>;
}

const silent: ControllerLogger = { info: () => undefined, warn: () => undefined };
const noCounters: GarbageCollectorCounters = { deleted: () => undefined, orphaned: () => undefined };
/**
 * Workers per queue: deletions of unrelated objects go on in parallel, and one key is
 * never worked twice at once. kube-controller-manager's `--concurrent-gc-syncs` is 20:
 * each worker mostly waits for the API, and a burst of created dependents, each checked
 * once, must not hold an owner's cascade back long.
 */
const workers = 20;
/** Read-modify-write attempts of an object's metadata before the work is retried later. */
const conflictAttempts = 5;
/** The catch-up's selectors: every object with owners, and every owner whose deletion waits for the collector. */
const catchUpSelectors = [`${ownerUidsField}!=`, `${finalizersField}=${foregroundFinalizer}`, `${finalizersField}=${orphanFinalizer}`];

/**
 * What a queued key asks: `check` an object that names owners (kube's attemptToDeleteItem),
 * look at the dependents of an `owner` (gone, or being deleted in foreground or with
 * orphan), or only see whether an owner deleted in foreground can be `release`d.
 */
type Task = 'check' | 'owner' | 'release';

/** One queued object: its task, location and uid, as a string so that the queue coalesces repeats. */
type Key = string;

/** A reference as a log shows it. */
const describeReference = (ref: OwnerReference): string => `${ref.kind}/${ref.name}`;
/** An object as a log shows it. */
const describeObject = (o: ObjectLocation): Record<string, string | undefined> => ({ kind: o.resource.kind, namespace: o.namespace, name: o.name });
/** The selector of the objects that name `uid` as an owner. */
const dependentsSelector = (uid: string): string => `${ownerUidsField}=${escapeFieldValue(uid)}`;

/** A served object's metadata with its location. */
interface Located extends ObjectLocation {
  readonly meta: ObjectMeta & { readonly uid: string };
}

/**
 * The owners' states the objects of one page share, each read once for the page (by
 * owner location and uid): a page's dependents mostly name the same owner. A state
 * read for a page is as old as the page, no older than a dependent's listed metadata;
 * an owner that goes meanwhile has its dependents listed again after its DELETED event.
 */
type PageOwners = Map<string, Promise<OwnerState>>;

/** The key of an owner in a page's owners. */
const ownerKey = (o: ObjectLocation, uid: string): string => JSON.stringify([o.resource.group, o.resource.kind, o.namespace ?? '', o.name, uid]);

/** How many objects of a page are worked on at once. */
const pageConcurrency = 16;

/** Runs `each` on every item, `pageConcurrency` at a time. */
async function inParallel<T>(items: readonly T[], each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await each(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(pageConcurrency, items.length) }, lane));
}

const beingDeletedWith = (meta: ObjectMeta, finalizer: string): boolean => Boolean(meta.deletionTimestamp) && (meta.finalizers ?? []).includes(finalizer);

/**
 * Starts the garbage collector on `client`; it discovers the served kinds first
 * (retrying until the API answers).
 *
 * @example
 * const gc = startGarbageCollector(createCairnClient(await loadKubeconfig(path)), { logger });
 * await gc.synced;
 * // …
 * await gc.stop();
 */
export function startGarbageCollector(client: CairnClient, options: GarbageCollectorOptions = {}): RunningGarbageCollector {
  const logger = options.logger ?? silent;
  const counters = options.counters ?? noCounters;
  const retryDelayMs = options.retryDelayMs ?? 1000;
  const pageSize = options.listPageSize;
  const maxQueued = options.maxQueued ?? 10_000;
  const absentOwners = new AbsentOwnerCache(options.absentOwners);
  /** The owners whose dependents are being looked at (by uid, how many times at once): each ends with a look whether the owner can be released. */
  const processing = new Map<string, number>();
  const stopping = new AbortController();
  const metadata = new MetadataClient(client);
  const attemptToDelete = new WorkQueue<Key>({ intervalMs: 0 });
  const attemptToOrphan = new WorkQueue<Key>({ intervalMs: 0 });
  let served: readonly ServedResource[] = [];
  let catchUps = 0;
  let catchingUpNow = false;
  /** Set when events were dropped or missed: a catch-up pass is due. */
  let catchUpDue = false;
  let wakeCatchUp: () => void = () => undefined;

  const keyOf = (task: Task, o: ObjectLocation, uid: string): Key =>
    JSON.stringify([task, o.resource.resource, o.resource.group, o.namespace ?? '', o.name, uid]);
  function parse(key: Key): { task: Task; location: ObjectLocation; uid: string } | undefined {
    const [task, plural, group, namespace, name, uid] = JSON.parse(key) as [Task, string, string, string, string, string];
    const resource = served.find((r) => r.resource === plural && r.group === group);
    return resource && { task, location: { resource, namespace: resource.namespaced ? namespace : undefined, name }, uid };
  }

  /** Queues a key, unless the queue is full: then the key is forgotten and a catch-up pass will find its object. */
  function enqueue(queue: WorkQueue<Key>, task: Task, o: ObjectLocation, uid: string): void {
    if (attemptToDelete.depth + attemptToOrphan.depth >= maxQueued) {
      dueCatchUp();
      return;
    }
    queue.add(keyOf(task, o, uid));
  }

  function dueCatchUp(): void {
    catchUpDue = true;
    wakeCatchUp();
  }

  /**
   * Every object of every served kind matching `selector`, a page at a time (a
   * namespaced owner's dependents may be of any namespaced kind; a cluster-scoped object
   * cannot have it as an owner, so `namespacedOnly` skips those kinds).
   */
  async function* matching(selector: string, namespacedOnly = false): AsyncGenerator<readonly Located[]> {
    for (const resource of served) {
      if (namespacedOnly && !resource.namespaced) continue;
      for await (const page of metadata.pages(resource, selector, pageSize, stopping.signal)) {
        yield page.flatMap((o) =>
          o.metadata?.uid ? [{ resource, namespace: o.metadata.namespace, name: o.metadata.name ?? '', meta: o.metadata as Located['meta'] }] : [],
        );
      }
    }
  }

  /**
   * Reads the object's metadata and patches what `change` returns of it, with its uid and
   * resourceVersion as preconditions; false when it is gone or `change` had nothing to patch.
   * `listed`, the metadata a list just read, stands in for the first read.
   */
  async function updateMetadata(
    location: ObjectLocation,
    uid: string,
    change: (meta: ObjectMeta) => MetadataPatch | undefined,
    listed?: ObjectMeta,
  ): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const meta = attempt === 1 && listed ? listed : (await metadata.get(location))?.metadata;
      if (meta?.uid !== uid) return false;
      const patch = change(meta);
      if (!patch) return false;
      try {
        await metadata.patchMetadata(location, { ...patch, uid, resourceVersion: meta.resourceVersion });
        return true;
      } catch (error) {
        if (isNotFound(error, location.name)) return false;
        if (!isConflict(error) || attempt === conflictAttempts) throw error;
      }
    }
  }

  /** Removes the collector's finalizer from an owner whose cascade is done. */
  const removeFinalizer = (owner: ObjectLocation, uid: string, finalizer: string): Promise<boolean> =>
    updateMetadata(owner, uid, (meta) => (meta.finalizers?.includes(finalizer) ? { finalizers: meta.finalizers.filter((f) => f !== finalizer) } : undefined));

  /** A change dropping the references to `uids`, if the object has any (a merge patch writes null once none is left). */
  const dropReferences =
    (uids: readonly string[]) =>
    (meta: ObjectMeta): MetadataPatch | undefined => {
      const kept = withoutReferences(meta.ownerReferences ?? [], uids);
      if (kept.length === (meta.ownerReferences ?? []).length) return undefined;
      return { ownerReferences: kept.length > 0 ? kept : null };
    };

  /** Whether some object still names `uid` as an owner whose deletion it blocks: the first page that has one ends the search. */
  async function blocked(owner: ObjectLocation, uid: string): Promise<boolean> {
    for await (const page of matching(dependentsSelector(uid), owner.resource.namespaced)) {
      if (page.some((d) => d.meta.ownerReferences?.some((ref) => ref.uid === uid && ref.blockOwnerDeletion))) return true;
    }
    return false;
  }

  /** Whether the object at `location` with `uid` has dependents, and whether one of them is itself being deleted in foreground. */
  async function dependentsOf(location: ObjectLocation, uid: string): Promise<{ hasDependents: boolean; dependentDeletingDependents: boolean }> {
    let hasDependents = false;
    for await (const page of matching(dependentsSelector(uid), location.resource.namespaced)) {
      hasDependents ||= page.length > 0;
      if (page.some((d) => beingDeletedWith(d.meta, foregroundFinalizer))) return { hasDependents, dependentDeletingDependents: true };
    }
    return { hasDependents, dependentDeletingDependents: false };
  }

  /** kube's attemptToDeleteItem for an object that names owners, read live. */
  async function check(location: ObjectLocation, uid: string): Promise<void> {
    const meta = (await metadata.get(location))?.metadata;
    // Gone, or another object under the name.
    if (meta?.uid !== uid) return;
    await attemptToDeleteItem({ ...location, meta: { ...meta, uid } }, new Map(), false);
  }

  /** The state of `ref`'s owner for the dependent at `location`, read once per page. */
  function pageOwnerState(location: ObjectLocation, ref: OwnerReference, owners: PageOwners): Promise<OwnerState> {
    const at = ownerLocation(location, ref, served);
    if (typeof at === 'string') return Promise.resolve(at);
    const key = ownerKey(at, ref.uid);
    let state = owners.get(key);
    if (!state) owners.set(key, (state = ownerState(metadata, location, ref, served, absentOwners)));
    return state;
  }

  /**
   * kube's attemptToDeleteItem on an object's metadata, read live or `listed` by a page
   * of a list (its owners' states then shared with the page's other objects): a deletion
   * decided on listed metadata has the listed resourceVersion as a precondition, and if
   * the object changed since (409), it is checked again, read live.
   */
  async function attemptToDeleteItem(object: Located, owners: PageOwners, listed: boolean): Promise<void> {
    const { meta } = object;
    const location: ObjectLocation = { resource: object.resource, namespace: object.namespace, name: object.name };
    const uid = meta.uid;
    if (meta.deletionTimestamp) {
      if (beingDeletedWith(meta, foregroundFinalizer)) enqueue(attemptToDelete, 'owner', location, uid);
      if (beingDeletedWith(meta, orphanFinalizer)) enqueue(attemptToOrphan, 'owner', location, uid);
      return;
    }
    const references = meta.ownerReferences ?? [];
    if (references.length === 0) return;
    const states = new Map<string, OwnerState>();
    for (const ref of references) states.set(ref.uid, await pageOwnerState(location, ref, owners));
    const classified = classifyReferences(references, (ref) => states.get(ref.uid)!);
    // Only an object its owner waits for needs to know of its own dependents (a query, so only then).
    const facts =
      classified.solid.length === 0 && classified.waitingForDependentsDeletion.length > 0
        ? await dependentsOf(location, uid)
        : { hasDependents: false, dependentDeletingDependents: false };
    const decision = decide(classified, { finalizers: meta.finalizers ?? [], ...facts });
    if (decision.action === 'keep') return;
    if (decision.action === 'removeReferences') {
      await updateMetadata(location, uid, dropReferences(decision.uids), listed ? meta : undefined);
      return;
    }
    // Unblocking changes the object first (a cycle of foreground deletions, rare): decided on what is there now.
    if (listed && decision.unblock.length > 0) return check(location, uid);
    if (decision.unblock.length > 0) await updateMetadata(location, uid, (m) => ({ ownerReferences: unblocked(m.ownerReferences ?? [], decision.unblock) }));
    try {
      await metadata.delete(location, uid, decision.propagationPolicy, listed ? meta.resourceVersion : undefined);
    } catch (error) {
      if (isNotFound(error, location.name)) return;
      // Changed since it was listed: decided again on what it is now.
      if (listed && isConflict(error)) return check(location, uid);
      // The uid precondition failed: another object under the name is not this one's business.
      if (isConflict(error)) return;
      throw error;
    }
    counters.deleted(location.resource.resource);
    logger.info(
      {
        ...describeObject(location),
        owners: references.map(describeReference),
        propagationPolicy: decision.propagationPolicy,
        // Which cascade this deletion is part of: an owner waiting for it, or owners gone.
        cascade: classified.waitingForDependentsDeletion.length > 0 ? 'foreground' : 'background',
      },
      'garbage collector deleted a dependent whose owners are gone or waiting for it',
    );
  }

  /** The state of an owner whose dependents are being looked at, read live. */
  async function readOwner(owner: ObjectLocation, uid: string): Promise<OwnerState> {
    const meta = (await metadata.get(owner))?.metadata;
    if (meta?.uid !== uid) {
      absentOwners.add(owner, uid);
      return 'absent';
    }
    return beingDeletedWith(meta, foregroundFinalizer) ? 'deletingDependents' : 'present';
  }

  /** kube's processDeletingDependentsItem: the owner goes once no blocking dependent is left. */
  async function release(owner: ObjectLocation, uid: string): Promise<void> {
    if (absentOwners.has(owner, uid)) return;
    // Read first: only an owner still waiting is worth the query of its dependents.
    const meta = (await metadata.get(owner))?.metadata;
    if (meta?.uid !== uid) absentOwners.add(owner, uid);
    if (meta?.uid !== uid || !beingDeletedWith(meta, foregroundFinalizer) || (await blocked(owner, uid))) return;
    if (await removeFinalizer(owner, uid, foregroundFinalizer))
      logger.info({ ...describeObject(owner), cascade: 'foreground' }, 'garbage collector finished a foreground deletion');
  }

  /** kube's attemptToOrphan: each dependent lets go of the owner, a page at a time, then the owner goes. */
  async function orphan(owner: ObjectLocation, uid: string): Promise<void> {
    let orphaned = 0;
    for await (const page of matching(dependentsSelector(uid), owner.resource.namespaced)) {
      for (const dependent of page) {
        if (await updateMetadata(dependent, dependent.meta.uid, dropReferences([uid]), dependent.meta)) {
          counters.orphaned(dependent.resource.resource);
          orphaned++;
        }
      }
    }
    if (await removeFinalizer(owner, uid, orphanFinalizer)) {
      logger.info({ ...describeObject(owner), cascade: 'orphan', orphaned }, 'garbage collector finished an orphaning deletion');
    }
  }

  /**
   * The dependents of an owner that is gone, or being deleted: each page's dependents
   * checked (or orphaned) before the next is read, on their listed metadata, with the
   * owner's state read once per page (never, once it is known to be gone).
   */
  async function processOwner(owner: ObjectLocation, uid: string): Promise<void> {
    let state: OwnerState = 'absent';
    if (!absentOwners.has(owner, uid)) {
      const meta = (await metadata.get(owner))?.metadata;
      if (meta?.uid !== uid) absentOwners.add(owner, uid);
      else if (beingDeletedWith(meta, orphanFinalizer)) return orphan(owner, uid);
      else if (beingDeletedWith(meta, foregroundFinalizer)) state = 'deletingDependents';
      else return;
    }
    processing.set(uid, (processing.get(uid) ?? 0) + 1);
    try {
      let first = true;
      for await (const page of matching(dependentsSelector(uid), owner.resource.namespaced)) {
        if (!first && state !== 'absent') state = await readOwner(owner, uid);
        first = false;
        const owners: PageOwners = new Map([[ownerKey(owner, uid), Promise.resolve(state)]]);
        await inParallel(page, (d) => attemptToDeleteItem(d, owners, true));
      }
    } finally {
      const left = (processing.get(uid) ?? 1) - 1;
      if (left > 0) processing.set(uid, left);
      else processing.delete(uid);
    }
    if (state !== 'absent') await release(owner, uid);
  }

  /** One worker of `queue` until it shuts down; failed work is tried again after `retryDelayMs`. */
  async function work(queue: WorkQueue<Key>): Promise<void> {
    for (let key = await queue.get(); key !== undefined; key = await queue.get()) {
      try {
        const item = parse(key);
        if (item?.task === 'check') await check(item.location, item.uid);
        else if (item?.task === 'owner') await processOwner(item.location, item.uid);
        // An owner whose dependents are being looked at is released after them anyway, with a query made after this key was queued.
        else if (item?.task === 'release' && !processing.has(item.uid)) await release(item.location, item.uid);
      } catch (error) {
        if (stopping.signal.aborted) return;
        logger.warn({ err: error, key }, 'garbage collection failed; retrying');
        setTimeout(() => queue.add(key), retryDelayMs).unref();
      } finally {
        queue.done(key);
      }
    }
  }

  /** What a watched change asks the workers to look at. */
  function observe(resource: ServedResource, type: 'ADDED' | 'MODIFIED' | 'DELETED', object: MetadataObject): void {
    const meta = object.metadata;
    if (!meta?.uid || meta.name === undefined) return;
    const location: ObjectLocation = { resource, namespace: meta.namespace, name: meta.name };
    const references = meta.ownerReferences ?? [];
    if (type === 'DELETED') {
      // Its uid is gone for good: its dependents need not read it.
      absentOwners.add(location, meta.uid);
      // Its dependents may now have no owner left, and its owners deleted in foreground may now go. Every
      // owner, not only those it blocked, as kube's graph builder does: with no old object to compare, a
      // blockOwnerDeletion cleared since is not seen, and an owner waiting for it would wait forever.
      enqueue(attemptToDelete, 'owner', location, meta.uid);
      for (const ref of references) {
        const at = ownerLocation(location, ref, served);
        if (typeof at !== 'string' && !absentOwners.has(at, ref.uid)) enqueue(attemptToDelete, 'release', at, ref.uid);
      }
      return;
    }
    if (beingDeletedWith(meta, foregroundFinalizer)) enqueue(attemptToDelete, 'owner', location, meta.uid);
    if (beingDeletedWith(meta, orphanFinalizer)) enqueue(attemptToOrphan, 'owner', location, meta.uid);
    if (references.length > 0 && !meta.deletionTimestamp) enqueue(attemptToDelete, 'check', location, meta.uid);
  }

  /**
   * Watches `resource` until the collector stops, with a Reflector whose sink keeps
   * nothing: its list is of one object, for the resourceVersion to watch from alone, and
   * a list after the first means events were missed (a watch that could not resume), so
   * a catch-up pass is due. The first list, which the start-up catch-up covers, calls
   * `listed` instead.
   */
  function reflect(resource: ServedResource, listed: () => void): Promise<void> {
    const listWatch: ListWatch<MetadataObject> = {
      list: async (signal) => ({ items: [], resourceVersion: (await metadata.list(resource, { limit: 1 }, signal)).resourceVersion }),
      watch: (resourceVersion, signal) => metadata.watch(resource, resourceVersion, signal, options.watchTimeoutSeconds),
    };
    let synced = false;
    const sink: ReflectorSink<MetadataObject> = {
      replace() {
        if (synced) return dueCatchUp();
        synced = true;
        listed();
      },
      apply: (event) => observe(resource, event.type, event.object),
    };
    const onError = (error: unknown) => logger.warn({ err: error, resource: resource.resource }, 'garbage collector: watch failed; watching again');
    return new Reflector(listWatch, sink, { retryDelayMs, onError }).run(stopping.signal);
  }

  /** Checks every object that has owners, and every owner waiting for the collector, a page at a time. */
  async function catchUp(): Promise<void> {
    catchUpDue = false;
    catchingUpNow = true;
    try {
      for (const selector of catchUpSelectors) {
        for await (const page of matching(selector)) {
          const owners: PageOwners = new Map();
          await inParallel(page, (o) => (selector === catchUpSelectors[0] ? attemptToDeleteItem(o, owners, true) : processOwner(o, o.meta.uid)));
        }
      }
      catchUps++;
    } finally {
      catchingUpNow = false;
    }
  }

  /** Runs a catch-up pass whenever one is due. */
  async function catchingUp(): Promise<void> {
    while (!stopping.signal.aborted) {
      if (!catchUpDue) await new Promise<void>((resolve) => (wakeCatchUp = resolve));
      if (stopping.signal.aborted) return;
      try {
        await catchUp();
      } catch (error) {
        if (stopping.signal.aborted) return;
        logger.warn({ err: error }, 'garbage collector: catch-up failed; retrying');
        catchUpDue = true;
        await sleep(retryDelayMs, undefined, { signal: stopping.signal }).catch(() => undefined);
      }
    }
  }

  /** Retries `step` until it succeeds or the collector stops; false when it stopped. */
  async function persist(what: string, step: () => Promise<void>): Promise<boolean> {
    for (;;) {
      try {
        await step();
        return true;
      } catch (error) {
        if (stopping.signal.aborted) return false;
        logger.warn({ err: error }, `garbage collector: ${what} failed; retrying`);
        await sleep(retryDelayMs, undefined, { signal: stopping.signal }).catch(() => undefined);
      }
    }
  }

  const running = (async (): Promise<Promise<void>[]> => {
    const started = await persist('discovery', async () => {
      served = await metadata.discover(stopping.signal);
    });
    if (!started) return [];
    const listed = served.map(() => Promise.withResolvers<void>());
    const watching = served.map((resource, i) => reflect(resource, listed[i].resolve));
    // Every watch starts from a list taken before the catch-up begins, so nothing between the two is missed.
    await Promise.race([Promise.all(listed.map(({ promise }) => promise)), new Promise((resolve) => stopping.signal.addEventListener('abort', resolve))]);
    if (stopping.signal.aborted) return watching;
    const working = [...Array.from({ length: workers }, () => work(attemptToDelete)), ...Array.from({ length: workers }, () => work(attemptToOrphan))];
    if (await persist('catch-up', catchUp)) logger.info({ resources: served.map((r) => `${r.resource}.${r.group}`) }, 'garbage collector synced');
    return [...watching, ...working, catchingUp()];
  })();

  return {
    synced: running.then(() => undefined),
    catchUps: () => catchUps,
    catchingUp: () => catchingUpNow,
    queueDepths: () => ({ attemptToDelete: attemptToDelete.depth, attemptToOrphan: attemptToOrphan.depth }),
    async stop() {
      stopping.abort();
      wakeCatchUp();
      attemptToDelete.shutDown();
      attemptToOrphan.shutDown();
      await Promise.all(await running);
    },
  };
}
