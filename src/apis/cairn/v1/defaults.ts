/**
 * Defaults of cairn.dev/v1, applied on create and update as kube applies defaults
 * when decoding. Only fields a client left unset are defaulted: a `0` stays `0`.
 */
import type { KubeObject } from '../../../machinery/meta/object.js';
import { isPlainObject } from '../../../machinery/meta/object.js';

/**
 * Defaults a v1 (or v1beta1) Pipeline in place: `spec.replicas` is 1 when unset. A
 * spec that is not an object is left for validation to refuse, never replaced.
 */
export function defaultPipeline(object: KubeObject): void {
  if (object.spec === undefined) object.spec = {};
  if (isPlainObject(object.spec) && object.spec.replicas === undefined) object.spec.replicas = 1;
}
