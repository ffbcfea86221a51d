/**
 * Moves one resource's rows written in older versions to its storage version, a
 * keyed page at a time. Each object is rewritten by an update that changes nothing
 * (storage writes a stale row all the same), so each rewrite is an ordinary
 * optimistic write: a new resourceVersion and a MODIFIED event for watchers, on every
 * replica, while servers keep serving. A write that lands between the read and the
 * rewrite makes the update read again and find the object already in the storage
 * version: nothing is rewritten over it.
 */
import type { ResourceStorage, StorageKey } from './interfaces.js';
import { StorageError } from './storage-error.js';

/** How far a migration has come: `done` of the `total` objects that were stale when it began. */
export interface StorageMigrationProgress {
  readonly done: number;
  readonly total: number;
}

/** Options of a migration. */
export interface StorageMigrationOptions {
  /** How many keys one page reads. */
  readonly pageSize: number;
  /** Called once before the first page and after every page. */
  readonly onProgress?: (progress: StorageMigrationProgress) => void;
}

/** What a migration did. */
export interface StorageMigrationResult {
  /** The objects that were stale when it began. */
  readonly total: number;
  /** The objects it rewrote; the others were rewritten or deleted by other writes first. */
  readonly rewritten: number;
}

/** What a rewrite records in the object's history: an update of Cairn's own, with no request, manager or user. */
const rewriteOrigin = { operation: 'update', subresource: '', fieldManager: '', user: '' } as const;

/** Rewrites the object at `key` in the storage version; false when another write already did, or deleted it. */
async function rewrite(storage: ResourceStorage, key: StorageKey): Promise<boolean> {
  try {
    return (await storage.guaranteedUpdate(key, (current) => current!, { origin: rewriteOrigin })).changed;
  } catch (error) {
    if (error instanceof StorageError && error.code === 'KeyNotFound') return false;
    throw error;
  }
}

/** Rewrites every object of `storage` stored in another version than its storage version. */
export async function migrateStorageVersion(storage: ResourceStorage, options: StorageMigrationOptions): Promise<StorageMigrationResult> {
  const total = await storage.countStale();
  let read = 0;
  let rewritten = 0;
  options.onProgress?.({ done: 0, total });
  let after: StorageKey | undefined;
  for (;;) {
    const keys = await storage.staleKeys(after, options.pageSize);
    for (const key of keys) {
      read++;
      if (await rewrite(storage, key)) rewritten++;
    }
    const finished = keys.length < options.pageSize;
    // Pages never read the objects other writes migrated first, so only the end knows they are done; and a
    // replica of an older release may still write stale rows after the count.
    options.onProgress?.({ done: finished ? total : Math.min(read, total), total });
    if (finished) return { total, rewritten };
    after = keys[keys.length - 1];
  }
}
