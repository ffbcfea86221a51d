/**
 * The strategy of writes through `/status`, derived from a resource's own strategy as
 * kube's custom resource status strategy is: such a write takes only `.status` from
 * what was sent (and the managedFields computed for it), everything else stays as stored.
 */
import type { Strategy } from '../apis/api-resource.js';

/** The status strategy of a resource whose main strategy is `main`. */
export function statusStrategy(main: Strategy): Strategy {
  return {
    ...main,
    prepareForCreate: () => {
      throw new Error('objects are not created through /status');
    },
    prepareForUpdate(object, old) {
      // Shallow: only top-level fields change here, and nothing below them is written to after.
      const next = { ...old };
      if (object.status === undefined) delete next.status;
      else next.status = object.status;
      // managedFields were computed for this write; the resourceVersion sent was its precondition.
      next.metadata = { ...next.metadata, managedFields: object.metadata?.managedFields };
      if (next.metadata.managedFields === undefined) delete next.metadata.managedFields;
      return next;
    },
    resetFields: () => Object.fromEntries(Object.keys(main.resetFields()).map((apiVersion) => [apiVersion, ['spec', 'metadata']])),
  };
}
