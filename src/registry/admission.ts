/**
 * The admission seam, as k8s.io/apiserver's `admission.Interface` chains plugins:
 * handlers run the mutating step inside the write's object computation and hand the
 * validating step to the Store, which calls it after the strategy validated, so nothing
 * slow (a webhook) ever runs while storage holds a lock.
 */
import type { Admission } from '../apis/admission.js';

export type { Admission, AdmissionAttributes, AdmissionOperation, ObjectLookup, RequestUser } from '../apis/admission.js';

/** The chain with no plugins: what Cairn runs until admission is configured. */
export const noAdmission: Admission = {};

/**
 * kube's `admission.chainAdmissionHandler`: every plugin's mutating step in order, each
 * on the previous one's result, then every validating step in order; the first refusal ends it.
 */
export function admissionChain(plugins: readonly Admission[]): Admission {
  return {
    async admit(attributes) {
      let object = attributes.object!;
      for (const plugin of plugins) {
        if (plugin.admit) object = await plugin.admit({ ...attributes, object });
      }
      return object;
    },
    async validate(attributes) {
      for (const plugin of plugins) await plugin.validate?.(attributes);
    },
  };
}
