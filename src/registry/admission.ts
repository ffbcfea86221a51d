/**
 * The admission seam, as k8s.io/apiserver's `admission.Interface`: a mutating step that
 * may change the object a write is about to store, then a validating step that may only
 * refuse it. Handlers run the mutating step inside the write's object computation and
 * hand the validating step to the Store, which calls it after the strategy validated, so
 * nothing slow (a webhook) ever runs while storage holds a lock.
 */
import type { KubeObject } from '../machinery/meta/object.js';

/** Who is asking: the authenticated user, as kube's `user.Info`. */
export interface RequestUser {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** The operation admitted, as admission.k8s.io names it. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** kube's `admission.Attributes`: what an admission plugin sees of one request. */
export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** The object to store (storage version); undefined for DELETE. */
  readonly object?: KubeObject;
  /** The stored object, for UPDATE and DELETE. */
  readonly oldObject?: KubeObject;
  readonly dryRun: boolean;
  readonly user?: RequestUser;
}

/** An admission chain: both steps are optional; a refusal is a thrown Status error (403 or 422 as kube's plugins answer). */
export interface Admission {
  /** Mutating admission: returns the object to store, possibly changed. */
  admit?(attributes: AdmissionAttributes): KubeObject | Promise<KubeObject>;
  /** Validating admission: throws to refuse. */
  validate?(attributes: AdmissionAttributes): void | Promise<void>;
}

/** The chain with no plugins: what Cairn runs until admission is configured. */
export const noAdmission: Admission = {};
