/**
 * The `scale` subresource, as kube's `ScaleREST`: an autoscaling/v1 Scale read from and
 * written into the object through the main store, so replicas follow the same update
 * path (optimistic concurrency, validation, admission) as any write of the object.
 */
import type { ScalePaths, Scale } from '../machinery/types/scale.js';
import { objectWithScale, scaleOf } from '../machinery/types/scale.js';
import { conflict, optimisticLockMessage } from '../machinery/errors.js';
import { isPlainObject, type KubeObject, type StoredObject } from '../machinery/meta/object.js';
import type { ObjectKey, Store, StoreWriteOptions, ValidateObjectUpdate } from './store.js';
import type { GetOptions } from './request-options.js';

/** kube's UpdatedObjectInfo for a Scale: the Scale a write wants, from the current one. */
export type ScaleInfo = (current: Scale) => unknown;

/** What the object a Scale write produced becomes before it is stored: the field manager's record of the write. */
export type ScaleTransform = (object: KubeObject, current: StoredObject) => KubeObject;

/** Reads and writes the Scale of one resource's objects. */
export class ScaleREST {
  readonly #store: Store;
  readonly #paths: ScalePaths;

  constructor(store: Store, paths: ScalePaths) {
    this.#store = store;
    this.#paths = paths;
  }

  /** The object's autoscaling/v1 Scale. */
  async get(key: ObjectKey, options?: GetOptions): Promise<Scale> {
    return scaleOf(await this.#store.get(key, options), this.#paths);
  }

  /**
   * Updates replicas from the Scale `scaleInfo` computes; its `metadata.resourceVersion`,
   * when sent, is a precondition (409). `transform` runs on the resulting object.
   */
  async update(
    key: ObjectKey,
    scaleInfo: ScaleInfo,
    transform: ScaleTransform,
    updateValidation: ValidateObjectUpdate,
    options: StoreWriteOptions,
  ): Promise<Scale> {
    const gr = { group: this.#store.resource.group, resource: this.#store.resource.plural };
    const { object } = await this.#store.update(
      key,
      async (current) => {
        // Without forceAllowCreate the store only calls this with an object.
        const stored = current!;
        const scale = await scaleInfo(scaleOf(stored, this.#paths));
        const sent = isPlainObject(scale) && isPlainObject(scale.metadata) ? scale.metadata.resourceVersion : undefined;
        if (sent && sent !== stored.metadata.resourceVersion) throw conflict(gr, key.name, optimisticLockMessage);
        return transform(objectWithScale(stored, scale, this.#paths), stored);
      },
      () => {},
      updateValidation,
      false,
      options,
    );
    return scaleOf(object, this.#paths);
  }
}
