/**
 * What admission sees of a write, as k8s.io/apiserver's `admission.Attributes` and
 * `admission.Interface` say it: a mutating step that may change the object a write is
 * about to store, then a validating step that may only refuse it. Defined beside the
 * groups, which hold admission plugins of their own (cairn.dev's business rules); the
 * registry chains them with the server's (NamespaceLifecycle, webhooks).
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
  /** The request's version: where a refusal's field paths point. */
  readonly version: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /**
   * The object to store; undefined for DELETE. Admission sees it in the storage version
   * (the hub), as kube's admission sees its internal version: mutating admission the
   * object the write computed (the Scale sent, on `/scale`), validating admission the
   * object the store is about to write.
   */
  readonly object?: KubeObject;
  /** The stored object, for UPDATE and DELETE. */
  readonly oldObject?: KubeObject;
  readonly dryRun: boolean;
  readonly user?: RequestUser;
  /** Adds a warning to the response (a `Warning: 299 - "…"` header), as kube's `warning.AddWarning`. */
  readonly warn?: (message: string) => void;
}

/** An admission plugin or chain: both steps are optional; a refusal is a thrown Status error (403 or 422 as kube's plugins answer). */
export interface Admission {
  /** Mutating admission: returns the object to store, possibly changed. */
  admit?(attributes: AdmissionAttributes): KubeObject | Promise<KubeObject>;
  /** Validating admission: throws to refuse. */
  validate?(attributes: AdmissionAttributes): void | Promise<void>;
}

/**
 * Reads one object of a group's resource, in its storage version, as kube's admission
 * plugins read through informer listers: from the server's watch cache, possibly a
 * little behind; undefined when there is none. Cluster-scoped objects have namespace ''.
 */
export type ObjectLookup = (resource: string, namespace: string, name: string) => Promise<KubeObject | undefined>;
