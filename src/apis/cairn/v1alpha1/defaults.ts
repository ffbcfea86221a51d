/**
 * Defaults of cairn.dev/v1alpha1, applied to what a client left unset.
 */
import { isPlainObject, type KubeObject } from '../../../machinery/meta/object.js';

/** Defaults a v1alpha1 Pipeline in place: `spec.parallelism` is 1 when unset. */
export function defaultPipeline(object: KubeObject): void {
  if (object.spec === undefined) object.spec = {};
  if (isPlainObject(object.spec) && object.spec.parallelism === undefined) object.spec.parallelism = 1;
}
