/**
 * Timestamps as ObjectMeta and managedFields carry them (kube's `metav1.Time`): the store
 * stamps creationTimestamp and deletionTimestamp, the field manager each entry's time.
 */

/** The second {@link text} spells: every write of one second shares it. */
let second = Number.NaN;
let text = '';

/** The current time as kube writes a `metav1.Time`: RFC 3339 in seconds. */
export function now(): string {
  const current = Math.floor(Date.now() / 1000);
  if (current !== second) {
    second = current;
    // toISOString ends in `.000Z` for a whole second: the milliseconds go.
    text = `${new Date(current * 1000).toISOString().slice(0, -5)}Z`;
  }
  return text;
}
