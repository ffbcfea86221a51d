/**
 * How a served resource's storage is opened: its qualified name, its selectable
 * fields, and the conversions that read rows written in its other versions. The
 * registry and `npm run storage-migrate` open it the same way.
 */
import type { ApiResource } from '../apis/api-resource.js';
import { metadataFields } from '../machinery/meta/metadata-fields.js';
import type { KubeObject } from '../machinery/meta/object.js';
import type { FieldsOf, ObjectStore, ResourceStorage, StorageVersioning } from '../storage/interfaces.js';

/** The name storage keeps `resource` under (`pipelines.cairn.dev`). */
export const storageName = (resource: ApiResource): string => `${resource.plural}.${resource.group}`;

/** The storage version of `resource` and the way to it from each of its other versions' `toStorage`. */
export function storageVersioningOf(resource: ApiResource): StorageVersioning {
  const conversions = new Map<string, (object: KubeObject) => KubeObject>();
  for (const version of resource.versions) {
    if (version.toStorage) conversions.set(`${resource.group}/${version.version}`, version.toStorage);
  }
  return Object.freeze({
    apiVersion: `${resource.group}/${resource.storageVersion}`,
    toStorage: (object: KubeObject) => {
      const convert = conversions.get(String(object.apiVersion));
      // A row of a version no longer served: kube fails such a read too, rather than serve it unconverted.
      if (!convert) throw new Error(`${storageName(resource)}: no conversion from ${String(object.apiVersion)} to the storage version`);
      return convert(object);
    },
  });
}

/**
 * The selectable fields storage keeps for `resource`'s objects: the kind's own, and the
 * list fields every kind has (`metadata.ownerReferences.uid`, `metadata.finalizers`).
 * Every writer of rows uses it, the bench's seed too, so a selection matches exactly.
 */
export function fieldsOf(resource: ApiResource): FieldsOf {
  return (object) => ({ ...resource.strategy.selectableFields(object), ...metadataFields(object) });
}

/** The storage of `resource` in `objectStore`. */
export function resourceStorage(objectStore: ObjectStore, resource: ApiResource): ResourceStorage {
  return objectStore.forResource(storageName(resource), fieldsOf(resource), storageVersioningOf(resource));
}
