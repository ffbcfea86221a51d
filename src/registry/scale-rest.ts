/**
 * The `scale` subresource, as kube's `ScaleREST`: an autoscaling/v1 Scale read from and
 * written into the object through the main store, so replicas follow the same update
 * path (optimistic concurrency, validation, admission) as any write of the object.
 */
import type { ScalePaths, Scale } from '../machinery/types/scale.js';
import { objectWithScale, scaleOf } from '../machinery/types/scale.js';
import { conflict, optimisticLockMessage } from '../machinery/errors.js';
import { isPlainObject, type KubeObject, type StoredObject } from '../machinery/meta/object.js';
import type { ObjectKey, Store, ValidateObject, ValidateObjectUpdate } from './store.js';
import type { EndpointWriteOptions, Getter, UpdatedObjectInfo, Updater } from './endpoint-rest.js';
import type { GetOptions } from './request-options.js';

/**
 * What the object a Scale write produced becomes before it is stored: `manager`'s record
 * of the write. A Scale has no managedFields to record in first: the write is recorded
 * once the Scale (admitted by then) is mapped onto the object.
 */
export type ScaleWriteRecord = (object: KubeObject, current: StoredObject, manager: string) => KubeObject;

/** Reads and writes the Scale of one resource's objects. */
export class ScaleREST implements Getter, Updater {
  readonly #store: Store;
  readonly #paths: ScalePaths;
  readonly #record: ScaleWriteRecord;

  constructor(store: Store, paths: ScalePaths, record: ScaleWriteRecord) {
    this.#store = store;
    this.#paths = paths;
    this.#record = record;
  }

  /** The object's autoscaling/v1 Scale. */
  async get(key: ObjectKey, options?: GetOptions): Promise<Scale> {
    return scaleOf(await this.#store.get(key, options), this.#paths);
  }

  /**
   * Updates replicas from the Scale `scaleInfo` computes; its `metadata.resourceVersion`,
   * when sent, is a precondition (409). A Scale is never created: `createValidation` and
   * `forceAllowCreate` are not used. The write is recorded under `options.manager` (an
   * apply's merge recorded itself).
   */
  async update(
    key: ObjectKey,
    scaleInfo: UpdatedObjectInfo,
    _createValidation: ValidateObject,
    updateValidation: ValidateObjectUpdate,
    _forceAllowCreate: boolean,
    options: EndpointWriteOptions,
  ): Promise<{ readonly object: Scale; readonly created: false }> {
    const gr = { group: this.#store.resource.group, resource: this.#store.resource.plural };
    const { object } = await this.#store.update(
      key,
      async (current) => {
        // Without forceAllowCreate the store only calls this with an object.
        const stored = current!;
        const scale = await scaleInfo(scaleOf(stored, this.#paths));
        const sent = isPlainObject(scale) && isPlainObject(scale.metadata) ? scale.metadata.resourceVersion : undefined;
        if (sent && sent !== stored.metadata.resourceVersion) throw conflict(gr, key.name, optimisticLockMessage);
        const written = objectWithScale(stored, scale, this.#paths);
        return options.manager === undefined ? written : this.#record(written, stored, options.manager);
      },
      () => {},
      updateValidation,
      false,
      options,
    );
    return { object: scaleOf(object, this.#paths), created: false };
  }
}
