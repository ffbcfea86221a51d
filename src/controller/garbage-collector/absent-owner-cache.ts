/**
 * kube's `absentOwnerCache`: owners known not to exist, so that the many dependents of
 * one deleted owner need not each read it again. An owner is named by where a
 * dependent looks for it (its resource, namespace and name) and its uid; it enters the
 * cache when a live read found no such object there, or when its DELETED event was
 * watched. A uid is never given to another object, so an owner once absent stays
 * absent and an entry is never wrong, only forgotten: the cache is a bounded LRU, and
 * its memory does not grow with the number of objects.
 */
import type { ObjectLocation } from './metadata-client.js';

/** How many owners the cache remembers by default (kube's collector keeps 500). */
export const defaultAbsentOwners = 1000;

/** The key of an owner: where it is looked for, and its uid. */
const keyOf = (owner: ObjectLocation, uid: string): string =>
  JSON.stringify([owner.resource.group, owner.resource.kind, owner.namespace ?? '', owner.name, uid]);

/**
 * A bounded set of owners verified absent, the least recently used forgotten first.
 *
 * @example
 * const absent = new AbsentOwnerCache(1000);
 * if (!absent.has(location, ref.uid) && !(await read(location))) absent.add(location, ref.uid);
 */
export class AbsentOwnerCache {
  readonly #capacity: number;
  /** A Map iterates in insertion order: the first key is the least recently used. */
  readonly #keys = new Map<string, true>();

  constructor(capacity = defaultAbsentOwners) {
    this.#capacity = capacity;
  }

  /** How many owners it remembers now. */
  get size(): number {
    return this.#keys.size;
  }

  /** Remembers that no object with `uid` is at `owner`. */
  add(owner: ObjectLocation, uid: string): void {
    const key = keyOf(owner, uid);
    this.#keys.delete(key);
    this.#keys.set(key, true);
    if (this.#keys.size > this.#capacity) this.#keys.delete(this.#keys.keys().next().value!);
  }

  /** Whether no object with `uid` is at `owner`, as far as the cache remembers. */
  has(owner: ObjectLocation, uid: string): boolean {
    const key = keyOf(owner, uid);
    if (!this.#keys.delete(key)) return false;
    this.#keys.set(key, true);
    return true;
  }
}
