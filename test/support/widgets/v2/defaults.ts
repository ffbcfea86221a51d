/** widgets.test/v2 defaults: one replica. */
import { isPlainObject, type KubeObject } from '../../../../src/machinery/meta/object.js';

/** Defaults `spec.replicas` to 1 when unset. */
export function defaultWidget(object: KubeObject): void {
  if (object.spec === undefined) object.spec = {};
  if (isPlainObject(object.spec) && object.spec.replicas === undefined) object.spec.replicas = 1;
}
