/**
 * Reads one resource's rows in its storage version, whatever version each was
 * written in (see {@link StorageVersioning}).
 */
import { deepFreeze, type StoredObject } from '../machinery/meta/object.js';
import type { StorageVersioning } from './interfaces.js';

/** Converts objects read from rows of an older version to the storage version. */
export class VersionDecoder {
  readonly #versioning: StorageVersioning | undefined;

  constructor(versioning: StorageVersioning | undefined) {
    this.#versioning = versioning;
  }

  /** The apiVersion of the rows that need no conversion; undefined when every row is read as written. */
  get apiVersion(): string | undefined {
    return this.#versioning?.apiVersion;
  }

  /** Whether `object` was written in another version than the storage version. */
  isStale(object: StoredObject): boolean {
    return this.isStaleVersion(String(object.apiVersion));
  }

  /** Whether an object encoded in `apiVersion` needs converting to the storage version. */
  isStaleVersion(apiVersion: string): boolean {
    return this.#versioning !== undefined && apiVersion !== this.#versioning.apiVersion;
  }

  /** `object` in the storage version: the same object, not a copy, when it already is (nearly every read). */
  decode(object: StoredObject): StoredObject {
    return this.#versioning !== undefined && this.isStale(object) ? (this.#versioning.toStorage(object) as StoredObject) : object;
  }

  /** As {@link decode}, for a frozen object many readers share (the watch cache's): a converted copy is frozen too. */
  decodeShared(object: StoredObject): StoredObject {
    const decoded = this.decode(object);
    return decoded === object ? object : deepFreeze(decoded);
  }
}
