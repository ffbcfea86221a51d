/** A group, version and kind (kube's `schema.GroupVersionKind`): which type an object or a path's answer is. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

const empty: GroupVersionKind = Object.freeze({ group: '', version: '', kind: '' });

/**
 * The type an object says it is, read as kube's `Unstructured.GroupVersionKind()` reads it:
 * its apiVersion split as `schema.ParseGroupVersion` splits it (`v1` has no group), a
 * field that is not a string read as empty, and nothing at all when the apiVersion has
 * more than one slash.
 */
export function groupVersionKindOf(object: Readonly<Record<string, unknown>>): GroupVersionKind {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const kind = typeof object.kind === 'string' ? object.kind : '';
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '', kind };
  const parts = apiVersion.split('/');
  if (parts.length > 2) return empty;
  return parts.length === 1 ? { group: '', version: apiVersion, kind } : { group: parts[0], version: parts[1], kind };
}

/**
 * A type as kube's messages print one (`schema.GroupVersionKind.String()`).
 *
 * @example
 * formatGroupVersionKind({ group: 'cairn.dev', version: 'v1', kind: '' }) // 'cairn.dev/v1, Kind='
 */
export function formatGroupVersionKind(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}
