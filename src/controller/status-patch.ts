/**
 * How the controller writes status: a merge patch of `status` to the `/status`
 * subresource, carrying the resourceVersion it was computed from, so a write over a
 * change it has not seen fails with 409 Conflict instead of losing that change.
 */

/** The field manager of the controller's writes, as recorded in managedFields. */
export const fieldManager = 'cairn-controller';

/** The headers and body of a conditional merge patch of `status` onto `object`. */
export function statusPatch<S>(object: { readonly metadata?: { readonly resourceVersion?: string } }, status: S) {
  return {
    headers: { 'Content-Type': 'application/merge-patch+json' },
    body: { metadata: { resourceVersion: object.metadata?.resourceVersion }, status },
  };
}
