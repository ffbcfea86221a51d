/** A group, version and kind (kube's `schema.GroupVersionKind`): which type an object or a path's answer is. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}
