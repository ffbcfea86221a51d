/**
 * Graceful deletion as kube-apiserver's generic store does it for kinds without a
 * grace period: an object with finalizers is not removed but marked
 * (`deletionTimestamp`, `deletionGracePeriodSeconds: 0`), and the garbage
 * collector's finalizers (`orphan`, `foregroundDeletion`) follow the propagation policy.
 */
import { foregroundFinalizer, orphanFinalizer } from '../machinery/meta/finalizers.js';
import type { KubeObject } from '../machinery/meta/object.js';
import type { DeleteOptions } from './request-options.js';

function shouldOrphan(finalizers: readonly string[], options: DeleteOptions): boolean {
  if (options.orphanDependents !== undefined) return options.orphanDependents;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Orphan';
  // A finalizer already on the object says what an earlier delete asked for.
  if (finalizers.includes(orphanFinalizer)) return true;
  return false;
}

function shouldDeleteForeground(finalizers: readonly string[], options: DeleteOptions): boolean {
  if (options.orphanDependents !== undefined) return false;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Foreground';
  return finalizers.includes(foregroundFinalizer) && !finalizers.includes(orphanFinalizer);
}

/** The object's finalizers once the delete's propagation policy is applied. */
function finalizersAfterDelete(object: KubeObject, options: DeleteOptions): string[] {
  const current = object.metadata?.finalizers ?? [];
  const kept = current.filter((f) => f !== orphanFinalizer && f !== foregroundFinalizer);
  if (shouldOrphan(current, options)) kept.push(orphanFinalizer);
  if (shouldDeleteForeground(current, options)) kept.push(foregroundFinalizer);
  const same = kept.length === current.length && kept.every((f) => current.includes(f));
  return same ? [...current] : kept;
}

/** What a delete does with an object: remove it now, or, while finalizers hold it back, store it marked. */
export type DeletionDecision = { readonly action: 'remove' } | { readonly action: 'mark'; readonly object: KubeObject };

/**
 * What a delete with `options` does with `object`. `now` is the deletionTimestamp a
 * first delete sets when it marks; that first delete also bumps the generation, as
 * kube's markAsDeleting does, since its controllers must now act differently.
 */
export function deletionDecision(object: KubeObject, options: DeleteOptions, now: string): DeletionDecision {
  const finalizers = finalizersAfterDelete(object, options);
  if (finalizers.length === 0) return { action: 'remove' };
  const metadata = { ...object.metadata, finalizers };
  if (!metadata.deletionTimestamp) {
    if (metadata.generation !== undefined && metadata.generation > 0) metadata.generation += 1;
    metadata.deletionTimestamp = now;
    metadata.deletionGracePeriodSeconds = 0;
  }
  return { action: 'mark', object: { ...object, metadata } };
}

/** Whether an update leaves an object that is being deleted without finalizers: then it is removed. */
export function deletionComplete(object: KubeObject): boolean {
  return Boolean(object.metadata?.deletionTimestamp) && (object.metadata?.finalizers ?? []).length === 0;
}
