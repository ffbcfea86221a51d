/**
 * Defaults of cairn.dev/v1, applied on create and update as kube applies defaults
 * when decoding. Only fields a client left unset are defaulted: a `0` stays `0`.
 */
import type { KubeObject } from '../../../machinery/object.js';
import { isPlainObject } from '../../../machinery/object.js';

/** Defaults a v1 Pipeline in place: `spec.replicas` is 1 when unset. */
export function defaultPipeline(object: KubeObject): void {
  if (!isPlainObject(object.spec)) object.spec = {};
  const spec = object.spec as Record<string, unknown>;
  if (spec.replicas === undefined) spec.replicas = 1;
}
