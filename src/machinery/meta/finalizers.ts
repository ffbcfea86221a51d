/**
 * The finalizers kube's garbage collector owns.
 */

/** The garbage collector removes it after orphaning the object's dependents. */
export const orphanFinalizer = 'orphan';
/** The garbage collector removes it after deleting the object's dependents. */
export const foregroundFinalizer = 'foregroundDeletion';
