/**
 * kube's NamespaceLifecycle admission plugin (`plugin/pkg/admission/namespace/lifecycle`)
 * for a Cairn in a cluster: a write into a namespace the main API server does not have
 * is refused with its `namespaces "x" not found`, and a create in a namespace being
 * terminated with 403 Forbidden. Deletes always pass, as do cluster-scoped objects.
 *
 * kube reads namespaces from an informer and asks the server when the informer has not
 * seen one. Cairn asks the server too, and remembers a namespace it found for a short
 * TTL (1 s by default), so a namespace deleted or terminating is noticed within it; a
 * namespace not found is never remembered, so one just created is usable at once.
 */
import { forbidden, internal, notFound } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/meta/object.js';
import { StatusError } from '../machinery/status.js';
import type { Admission, AdmissionAttributes } from './admission.js';

/** A namespace's `status.phase`, or undefined when the namespace does not exist. */
export type NamespacePhase = 'Active' | 'Terminating' | undefined;

/** Reads a namespace of the main API server; throws when it cannot tell. */
export type NamespaceLookup = (name: string) => Promise<NamespacePhase>;

/** The cause kube adds to the Forbidden of a create in a terminating namespace. */
const namespaceTerminatingCause = 'NamespaceTerminating';

/** Refuses writes into namespaces that do not exist or are being terminated. */
export class NamespaceLifecycle implements Admission {
  readonly #lookup: NamespaceLookup;
  readonly #ttlMs: number;
  readonly #found = new Map<string, { readonly phase: 'Active' | 'Terminating'; readonly expires: number }>();

  /** `ttlMs`: how long a namespace found is remembered. */
  constructor(lookup: NamespaceLookup, ttlMs = 1000) {
    this.#lookup = lookup;
    this.#ttlMs = ttlMs;
  }

  async admit(a: AdmissionAttributes): Promise<KubeObject> {
    await this.#check(a);
    // Only DELETE comes without an object, and it is never refused.
    return a.object as KubeObject;
  }

  /** kube's `Lifecycle.Admit`. */
  async #check(a: AdmissionAttributes): Promise<void> {
    if (a.namespace === '' || a.operation === 'DELETE') return;
    const phase = await this.#phase(a.namespace);
    if (phase === undefined) throw notFound({ group: '', resource: 'namespaces' }, a.namespace);
    if (a.operation !== 'CREATE' || phase !== 'Terminating') return;
    const { status } = forbidden(
      { group: a.group, resource: a.resource },
      a.name,
      `unable to create new content in namespace ${a.namespace} because it is being terminated`,
    );
    const cause = { reason: namespaceTerminatingCause, message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' };
    throw new StatusError({ ...status, details: { ...status.details, causes: [...(status.details?.causes ?? []), cause] } });
  }

  async #phase(namespace: string): Promise<NamespacePhase> {
    const cached = this.#found.get(namespace);
    if (cached !== undefined && cached.expires > Date.now()) return cached.phase;
    this.#found.delete(namespace);
    let phase: NamespacePhase;
    try {
      phase = await this.#lookup(namespace);
    } catch (error) {
      throw internal(`looking up namespace ${namespace}: ${(error as Error).message}`);
    }
    if (phase !== undefined) {
      this.#found.set(namespace, { phase, expires: Date.now() + this.#ttlMs });
      // Bounded: forget the oldest once many namespaces were seen.
      if (this.#found.size > 4096) this.#found.delete(this.#found.keys().next().value as string);
    }
    return phase;
  }
}
