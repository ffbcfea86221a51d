/**
 * What kube's garbage collector decides for an object that names owners
 * (`attemptToDeleteItem`), as pure functions of what it found: each ownerReference
 * is classified by its owner's state, and the classes say whether the object stays,
 * loses some references, or is deleted, and with which propagation policy.
 */
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { foregroundFinalizer, orphanFinalizer } from '../../machinery/meta/finalizers.js';

/**
 * An owner as a live read found it: `unserved` (a kind the server does not serve,
 * whose existence cannot be told), `absent` (no object of that name and uid where a
 * dependent's owner can be), `present`, or `deletingDependents` (being deleted in foreground).
 */
export type OwnerState = 'unserved' | 'absent' | 'present' | 'deletingDependents';

/** An object's ownerReferences by their owners' states. */
export interface ClassifiedReferences {
  /** Owners that exist and keep the object (an owner of an unserved kind counts as one: it is left alone). */
  readonly solid: readonly OwnerReference[];
  /** Owners that do not exist. */
  readonly dangling: readonly OwnerReference[];
  /** Owners being deleted in foreground, waiting for their dependents to go. */
  readonly waitingForDependentsDeletion: readonly OwnerReference[];
}

/** Sorts `references` by the state of each one's owner. */
export function classifyReferences(references: readonly OwnerReference[], stateOf: (reference: OwnerReference) => OwnerState): ClassifiedReferences {
  const solid: OwnerReference[] = [];
  const dangling: OwnerReference[] = [];
  const waitingForDependentsDeletion: OwnerReference[] = [];
  for (const reference of references) {
    const state = stateOf(reference);
    if (state === 'absent') dangling.push(reference);
    else if (state === 'deletingDependents') waitingForDependentsDeletion.push(reference);
    else solid.push(reference);
  }
  return { solid, dangling, waitingForDependentsDeletion };
}

/** The propagation policies the collector deletes with. */
export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

/** What to do with an object that names owners. */
export type Decision =
  | { readonly action: 'keep' }
  /** Some owner still holds it: drop only the references to owners gone or going. */
  | { readonly action: 'removeReferences'; readonly uids: readonly string[] }
  /**
   * Every owner is gone or going: delete it. `unblock` lists the references whose
   * `blockOwnerDeletion` to clear first, so that two foreground deletions waiting for
   * each other (a cycle) do not wait forever.
   */
  | { readonly action: 'delete'; readonly propagationPolicy: PropagationPolicy; readonly unblock: readonly string[] };

/** What the decision needs to know of the object beside its references' classes. */
export interface DependentFacts {
  readonly finalizers: readonly string[];
  /** Whether the object has dependents of its own. */
  readonly hasDependents: boolean;
  /** Whether one of its dependents is itself being deleted in foreground. */
  readonly dependentDeletingDependents: boolean;
}

/** kube's decision in `attemptToDeleteItem` for an object that is not being deleted itself. */
export function decide(classified: ClassifiedReferences, facts: DependentFacts): Decision {
  const { solid, dangling, waitingForDependentsDeletion } = classified;
  if (solid.length > 0) {
    const uids = [...dangling, ...waitingForDependentsDeletion].map((ref) => ref.uid);
    return uids.length > 0 ? { action: 'removeReferences', uids } : { action: 'keep' };
  }
  if (waitingForDependentsDeletion.length > 0 && facts.hasDependents) {
    // Its owner waits for it, and it has dependents of its own: they go first, in foreground too.
    const unblock = facts.dependentDeletingDependents ? waitingForDependentsDeletion.filter((ref) => ref.blockOwnerDeletion).map((ref) => ref.uid) : [];
    return { action: 'delete', propagationPolicy: 'Foreground', unblock };
  }
  // The object's own finalizers say how an earlier delete wanted its dependents treated.
  const propagationPolicy = facts.finalizers.includes(orphanFinalizer)
    ? 'Orphan'
    : facts.finalizers.includes(foregroundFinalizer)
      ? 'Foreground'
      : 'Background';
  return { action: 'delete', propagationPolicy, unblock: [] };
}

/** The ownerReferences left once those naming `uids` are dropped. */
export function withoutReferences(references: readonly OwnerReference[], uids: readonly string[]): OwnerReference[] {
  return references.filter((ref) => !uids.includes(ref.uid));
}

/** The ownerReferences with `blockOwnerDeletion` cleared on those naming `uids`. */
export function unblocked(references: readonly OwnerReference[], uids: readonly string[]): OwnerReference[] {
  return references.map((ref) => (uids.includes(ref.uid) ? { ...ref, blockOwnerDeletion: false } : ref));
}
