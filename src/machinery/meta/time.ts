/**
 * Timestamps as ObjectMeta and managedFields carry them (kube's `metav1.Time`): the store
 * stamps creationTimestamp and deletionTimestamp, the field manager each entry's time.
 */

/** The current time as kube writes a `metav1.Time`: RFC 3339 in seconds. */
export function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}
