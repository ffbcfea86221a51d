/**
 * The garbage collector's view of ownership, as kube's GraphBuilder keeps it: a node
 * per observed object (by uid), its ownerReferences, and for every owner uid the
 * dependents that name it, whether or not the owner itself was ever observed. Each
 * observed change returns the work it makes, as the GraphBuilder's
 * `processGraphChanges` enqueues it.
 */
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';
import { foregroundFinalizer, orphanFinalizer } from '../../machinery/meta/finalizers.js';
import type { ObjectLocation, ServedResource } from './metadata-client.js';

/** One observed object. */
export interface Node extends ObjectLocation {
  readonly uid: string;
  readonly ownerReferences: readonly OwnerReference[];
  /** Whether it carries a deletionTimestamp. */
  readonly beingDeleted: boolean;
  /** Being deleted with the `foregroundDeletion` finalizer: its dependents go first. */
  readonly deletingDependents: boolean;
  /** Being deleted with the `orphan` finalizer: its dependents are to be let go. */
  readonly orphaningDependents: boolean;
}

/** The objects (by uid) a change asks the workers to look at. */
export interface GraphWork {
  /** To be checked for deletion (kube's attemptToDelete queue). */
  readonly attemptToDelete: readonly string[];
  /** Owners whose dependents are to be orphaned (kube's attemptToOrphan queue). */
  readonly attemptToOrphan: readonly string[];
}

/** The node of an object's metadata, as listed or watched from `resource`. */
export function nodeOf(resource: ServedResource, metadata: ObjectMeta): Node {
  const finalizers = metadata.finalizers ?? [];
  const beingDeleted = Boolean(metadata.deletionTimestamp);
  return Object.freeze({
    resource,
    namespace: metadata.namespace,
    name: metadata.name ?? '',
    uid: metadata.uid ?? '',
    ownerReferences: metadata.ownerReferences ?? [],
    beingDeleted,
    deletingDependents: beingDeleted && finalizers.includes(foregroundFinalizer),
    orphaningDependents: beingDeleted && finalizers.includes(orphanFinalizer),
  });
}

/**
 * The owner→dependents graph.
 *
 * @example
 * const work = graph.observe(nodeOf(resource, object.metadata));
 * for (const uid of work.attemptToDelete) attemptToDelete.add(uid);
 */
export class Graph {
  readonly #nodes = new Map<string, Node>();
  /** Owner uid → the uids of the observed objects that name it. */
  readonly #dependents = new Map<string, Set<string>>();

  /** How many objects the graph holds. */
  get size(): number {
    return this.#nodes.size;
  }

  node(uid: string): Node | undefined {
    return this.#nodes.get(uid);
  }

  /** The observed objects that name `owner` in an ownerReference. */
  dependents(owner: string): Node[] {
    return [...(this.#dependents.get(owner) ?? [])].flatMap((uid) => this.#nodes.get(uid) ?? []);
  }

  /** The dependents whose reference to `owner` has `blockOwnerDeletion: true`: a foreground deletion waits for them. */
  blockingDependents(owner: string): Node[] {
    return this.dependents(owner).filter((d) => d.ownerReferences.some((ref) => ref.uid === owner && ref.blockOwnerDeletion === true));
  }

  /** Records an added or changed object. */
  observe(node: Node): GraphWork {
    const previous = this.#nodes.get(node.uid);
    this.#unlink(previous);
    this.#nodes.set(node.uid, node);
    for (const ref of node.ownerReferences) this.#link(ref.uid, node.uid);
    const attemptToDelete = new Set<string>();
    if (node.deletingDependents) {
      attemptToDelete.add(node.uid);
      if (!previous?.deletingDependents) for (const dependent of this.#dependents.get(node.uid) ?? []) attemptToDelete.add(dependent);
    }
    // An owner not observed (yet, or ever), not where the reference can reach it, or being deleted in foreground: the workers look at it live.
    if (node.ownerReferences.some((ref) => !this.#validOwner(node, ref) || this.#nodes.get(ref.uid)?.deletingDependents)) attemptToDelete.add(node.uid);
    // A reference gone or changed may be what a foreground deletion waits for.
    for (const owner of this.#deletingOwners([...(previous?.ownerReferences ?? []), ...node.ownerReferences])) attemptToDelete.add(owner);
    return { attemptToDelete: [...attemptToDelete], attemptToOrphan: node.orphaningDependents ? [node.uid] : [] };
  }

  /** Records a deleted object: its dependents may now be dangling, its owners may be waiting for it. */
  remove(uid: string): GraphWork {
    const node = this.#nodes.get(uid);
    if (!node) return { attemptToDelete: [], attemptToOrphan: [] };
    this.#unlink(node);
    this.#nodes.delete(uid);
    const attemptToDelete = [...(this.#dependents.get(uid) ?? []), ...this.#deletingOwners(node.ownerReferences)];
    return { attemptToDelete: [...new Set(attemptToDelete)], attemptToOrphan: [] };
  }

  /** Whether the observed object of the reference's uid is what the reference names, where a dependent at `dependent` can have it. */
  #validOwner(dependent: Node, ref: OwnerReference): boolean {
    const owner = this.#nodes.get(ref.uid);
    if (!owner || owner.name !== ref.name || owner.resource.kind !== ref.kind) return false;
    return !owner.resource.namespaced || owner.namespace === dependent.namespace;
  }

  #deletingOwners(references: readonly OwnerReference[]): string[] {
    return references.filter((ref) => this.#nodes.get(ref.uid)?.deletingDependents).map((ref) => ref.uid);
  }

  #link(owner: string, dependent: string): void {
    let dependents = this.#dependents.get(owner);
    if (!dependents) this.#dependents.set(owner, (dependents = new Set()));
    dependents.add(dependent);
  }

  #unlink(node: Node | undefined): void {
    for (const ref of node?.ownerReferences ?? []) {
      const dependents = this.#dependents.get(ref.uid);
      dependents?.delete(node!.uid);
      if (dependents?.size === 0) this.#dependents.delete(ref.uid);
    }
  }
}
