/**
 * PartialObjectMetadata(List): the metadata-only form of objects that
 * kube-controller-manager's garbage collector and namespace controller read.
 */
import type { ObjectMeta } from '../meta/object.js';

/** The meta.k8s.io versions that carry Table and PartialObjectMetadata. */
export type MetaVersion = 'v1' | 'v1beta1';

/** A list's metadata. */
export interface ListMeta {
  readonly resourceVersion?: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

/** The PartialObjectMetadata of an object. */
export function partialObjectMetadata(metadata: ObjectMeta | undefined, version: MetaVersion = 'v1') {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: metadata ?? {} };
}

/**
 * The PartialObjectMetadataList of a list's items. Without items, `items` is null: kube
 * builds the list by appending to a nil slice, which Go writes as null.
 */
export function partialObjectMetadataList(items: readonly { readonly metadata?: ObjectMeta }[], listMeta: ListMeta, version: MetaVersion = 'v1') {
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: listMeta,
    items: items.length ? items.map((item) => partialObjectMetadata(item.metadata, version)) : null,
  };
}
