/**
 * The garbage collector of a standalone Cairn, following kube's
 * (`pkg/controller/garbagecollector`): the registry marks a deletion (the
 * `foregroundDeletion` or `orphan` finalizer and a deletionTimestamp, or removes the
 * owner at once in background), and this finishes it. It is a client of the API like
 * any other: discovery names the served kinds, a metadata informer per kind feeds the
 * owner→dependents graph, and two queues are worked as kube's are —
 *
 * - attemptToDelete: an object whose owners are all gone or going is deleted (its own
 *   finalizers pick the propagation policy); one with some owner left loses only the
 *   references to the others; an owner deleted in foreground loses its
 *   `foregroundDeletion` finalizer once no dependent with `blockOwnerDeletion` is left;
 * - attemptToOrphan: an owner deleted with `orphan` has its reference removed from each
 *   dependent, then loses its `orphan` finalizer.
 *
 * Owners are read live before a dependent is deleted, never judged from the cache alone.
 */
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';
import { isConflict, isNotFound } from '../../client/api-error.js';
import type { CairnClient } from '../../client/cairn-client.js';
import { Informer } from '../../client/informer.js';
import { foregroundFinalizer, orphanFinalizer } from '../../machinery/meta/finalizers.js';
import type { ControllerLogger } from '../controller.js';
import { WorkQueue } from '../work-queue.js';
import { classifyReferences, decide, unblocked, withoutReferences, type OwnerState } from './decisions.js';
import { Graph, nodeOf, type GraphWork, type Node } from './graph.js';
import { MetadataClient, type MetadataObject, type MetadataPatch, type ObjectLocation, type ServedResource } from './metadata-client.js';
import { ownerState } from './owners.js';

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
  /** How many objects each page of the informers' lists holds (500 by default, as client-go's pager). */
  readonly listPageSize?: number;
}

/** A running garbage collector. */
export interface RunningGarbageCollector {
  /** Resolves once every served kind's informer holds its first list and the workers run. */
  readonly synced: Promise<void>;
  /** How many objects the graph holds. */
  graphSize(): number;
  /** How many objects wait in each queue. */
  queueDepths(): { readonly attemptToDelete: number; readonly attemptToOrphan: number };
  /** Stops watching, lets the work in progress finish, and resolves when everything has stopped. */
  stop(): Promise<void>;
}

const silent: ControllerLogger = { info: () => undefined, warn: () => undefined };
const noCounters: GarbageCollectorCounters = { deleted: () => undefined, orphaned: () => undefined };
/** Workers per queue: deletions of unrelated objects go on in parallel, and one key is never worked twice at once. */
const workers = 4;
/** Read-modify-write attempts of an object's metadata before the work is retried later. */
const conflictAttempts = 5;

/** A reference as a log shows it. */
const describeReference = (ref: OwnerReference): string => `${ref.kind}/${ref.name}`;
/** An object as a log shows it. */
const describeObject = (o: ObjectLocation): Record<string, string | undefined> => ({ kind: o.resource.kind, namespace: o.namespace, name: o.name });

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
  const stopping = new AbortController();
  const metadata = new MetadataClient(client);
  const graph = new Graph();
  const attemptToDelete = new WorkQueue<string>({ intervalMs: 0 });
  const attemptToOrphan = new WorkQueue<string>({ intervalMs: 0 });
  let served: readonly ServedResource[] = [];

  const enqueue = (work: GraphWork): void => {
    for (const uid of work.attemptToDelete) attemptToDelete.add(uid);
    for (const uid of work.attemptToOrphan) attemptToOrphan.add(uid);
  };

  /**
   * Reads the object's metadata and patches what `change` returns of it, with its uid and
   * resourceVersion as preconditions; false when it is gone or `change` had nothing to patch.
   */
  async function updateMetadata(location: ObjectLocation, uid: string, change: (meta: ObjectMeta) => MetadataPatch | undefined): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const meta = (await metadata.get(location))?.metadata;
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
  const removeFinalizer = (owner: Node, finalizer: string): Promise<boolean> =>
    updateMetadata(owner, owner.uid, (meta) =>
      meta.finalizers?.includes(finalizer) ? { finalizers: meta.finalizers.filter((f) => f !== finalizer) } : undefined,
    );

  /** A change dropping the references to `uids`, if the object has any (a merge patch writes null once none is left). */
  const dropReferences =
    (uids: readonly string[]) =>
    (meta: ObjectMeta): MetadataPatch | undefined => {
      const kept = withoutReferences(meta.ownerReferences ?? [], uids);
      if (kept.length === (meta.ownerReferences ?? []).length) return undefined;
      return { ownerReferences: kept.length > 0 ? kept : null };
    };

  /** kube's processDeletingDependentsItem: the owner goes once no blocking dependent is left. */
  async function processDeletingDependents(owner: Node): Promise<void> {
    const blocking = graph.blockingDependents(owner.uid);
    if (blocking.length > 0) {
      for (const dependent of blocking) if (!dependent.deletingDependents) attemptToDelete.add(dependent.uid);
      return;
    }
    if (await removeFinalizer(owner, foregroundFinalizer))
      logger.info({ ...describeObject(owner), cascade: 'foreground' }, 'garbage collector finished a foreground deletion');
  }

  /** kube's attemptToDeleteItem. */
  async function attemptToDeleteItem(uid: string): Promise<void> {
    const cached = graph.node(uid);
    if (!cached) return;
    const meta = (await metadata.get(cached))?.metadata;
    // Gone, or another object under the name: the watch tells the graph.
    if (meta?.uid !== uid) return;
    const node = nodeOf(cached.resource, meta);
    if (node.deletingDependents) return processDeletingDependents(node);
    if (node.beingDeleted || node.ownerReferences.length === 0) return;
    const states = new Map<string, OwnerState>();
    for (const ref of node.ownerReferences) states.set(ref.uid, await ownerState(metadata, node, ref, served));
    const dependents = graph.dependents(uid);
    const classified = classifyReferences(node.ownerReferences, (ref) => states.get(ref.uid)!);
    const decision = decide(classified, {
      finalizers: meta.finalizers ?? [],
      hasDependents: dependents.length > 0,
      dependentDeletingDependents: dependents.some((d) => d.deletingDependents),
    });
    if (decision.action === 'keep') return;
    if (decision.action === 'removeReferences') {
      await updateMetadata(node, uid, dropReferences(decision.uids));
      return;
    }
    if (decision.unblock.length > 0) await updateMetadata(node, uid, (m) => ({ ownerReferences: unblocked(m.ownerReferences ?? [], decision.unblock) }));
    try {
      await metadata.delete(node, uid, decision.propagationPolicy);
    } catch (error) {
      // Gone already, or the uid precondition failed: another object under the name is not this one's business.
      if (isNotFound(error, node.name) || isConflict(error)) return;
      throw error;
    }
    counters.deleted(node.resource.resource);
    logger.info(
      {
        ...describeObject(node),
        owners: node.ownerReferences.map(describeReference),
        propagationPolicy: decision.propagationPolicy,
        // Which cascade this deletion is part of: an owner waiting for it, or owners gone.
        cascade: classified.waitingForDependentsDeletion.length > 0 ? 'foreground' : 'background',
      },
      'garbage collector deleted a dependent whose owners are gone or waiting for it',
    );
  }

  /** kube's attemptToOrphan: each dependent lets go of the owner, then the owner goes. */
  async function attemptToOrphanItem(uid: string): Promise<void> {
    const owner = graph.node(uid);
    if (!owner?.orphaningDependents) return;
    const dependents = graph.dependents(uid);
    for (const dependent of dependents) {
      if (await updateMetadata(dependent, dependent.uid, dropReferences([uid]))) {
        counters.orphaned(dependent.resource.resource);
      }
    }
    if (await removeFinalizer(owner, orphanFinalizer)) {
      logger.info({ ...describeObject(owner), cascade: 'orphan', orphaned: dependents.length }, 'garbage collector finished an orphaning deletion');
    }
  }

  /** One worker of `queue` until it shuts down; failed work is tried again after `retryDelayMs`. */
  async function work(queue: WorkQueue<string>, item: (uid: string) => Promise<void>): Promise<void> {
    for (let uid = await queue.get(); uid !== undefined; uid = await queue.get()) {
      try {
        await item(uid);
      } catch (error) {
        if (stopping.signal.aborted) return;
        logger.warn({ err: error, uid }, 'garbage collection failed; retrying');
        setTimeout(() => queue.add(uid), retryDelayMs).unref();
      } finally {
        queue.done(uid);
      }
    }
  }

  /** Keeps the graph current with one kind's objects. */
  function inform(resource: ServedResource): Informer<MetadataObject> {
    const informer = new Informer(metadata.listWatch(resource, options.watchTimeoutSeconds, options.listPageSize), {
      onError: (error) => logger.warn({ err: error, resource: resource.resource }, 'garbage collector: list or watch failed; listing again'),
    });
    informer.onChange((previous, current) => {
      const before = previous?.metadata?.uid;
      const after = current?.metadata?.uid;
      // Deleted, or replaced by another object under the same name between two lists.
      if (before !== undefined && before !== after) enqueue(graph.remove(before));
      if (current?.metadata) enqueue(graph.observe(nodeOf(resource, current.metadata)));
    });
    return informer;
  }

  const running = (async (): Promise<Promise<void>[]> => {
    for (;;) {
      try {
        served = await metadata.discover(stopping.signal);
        break;
      } catch (error) {
        if (stopping.signal.aborted) return [];
        logger.warn({ err: error }, 'garbage collector: discovery failed; retrying');
        await sleep(retryDelayMs, undefined, { signal: stopping.signal }).catch(() => undefined);
      }
    }
    const informers = served.map(inform);
    const informing = informers.map((informer) => informer.run(stopping.signal));
    // The workers start once every cache is full: a dependent judged on a partial graph could be judged wrong.
    await Promise.race([Promise.all(informers.map((informer) => informer.synced)), once(stopping.signal, 'abort')]);
    if (stopping.signal.aborted) return informing;
    logger.info({ resources: served.map((r) => `${r.resource}.${r.group}`) }, 'garbage collector synced');
    const working = [
      ...Array.from({ length: workers }, () => work(attemptToDelete, attemptToDeleteItem)),
      ...Array.from({ length: workers }, () => work(attemptToOrphan, attemptToOrphanItem)),
    ];
    return [...informing, ...working];
  })();

  return {
    synced: running.then(() => undefined),
    graphSize: () => graph.size,
    queueDepths: () => ({ attemptToDelete: attemptToDelete.depth, attemptToOrphan: attemptToOrphan.depth }),
    async stop() {
      stopping.abort();
      attemptToDelete.shutDown();
      attemptToOrphan.shutDown();
      await Promise.all(await running);
    },
  };
}
