/** widgets.test/v2 to and from the v1 hub: `spec.replicas` ⇄ `spec.size`. */
import { deepCopy, isPlainObject, type KubeObject } from '../../../../src/machinery/meta/object.js';

function renamed(object: KubeObject, apiVersion: string, from: string, to: string): KubeObject {
  const copy = deepCopy(object);
  copy.apiVersion = apiVersion;
  if (isPlainObject(copy.spec) && from in copy.spec) {
    copy.spec[to] = copy.spec[from];
    delete copy.spec[from];
  }
  return copy;
}

/** A v2 Widget as the v1 hub holds it. */
export const toStorage = (object: KubeObject): KubeObject => renamed(object, 'widgets.test/v1', 'replicas', 'size');

let fromStorageCalls = 0;

/** How many objects `fromStorage` has converted so far: tests of the watch count conversions with it. */
export const fromStorageCount = (): number => fromStorageCalls;

/** A v1 Widget in v2. */
export const fromStorage = (object: KubeObject): KubeObject => {
  fromStorageCalls++;
  return renamed(object, 'widgets.test/v2', 'size', 'replicas');
};

/** v2's field selector labels in v1; v1's `spec.size` is no label of v2. */
export const fieldLabel = (label: string): string | undefined => (label === 'spec.replicas' ? 'spec.size' : label === 'spec.size' ? undefined : label);
