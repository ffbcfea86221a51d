/**
 * The one place storage errors become API errors, as kube's `storeerr.Interpret*Error`.
 */
import {
  conflict,
  expired,
  notFound,
  alreadyExists,
  optimisticLockMessage,
  serviceUnavailable,
  tooLargeResourceVersion,
  type GroupResource,
} from '../machinery/errors.js';
import type { StorageWatcher } from '../storage/interfaces.js';
import { StorageError } from '../storage/storage-error.js';

/** Translates a StorageError about `name` into the Status error kube would answer; others pass through. */
export function interpretStorageError(error: unknown, gr: GroupResource, name: string): unknown {
  if (!(error instanceof StorageError)) return error;
  switch (error.code) {
    case 'KeyNotFound':
      return notFound(gr, name);
    case 'KeyExists':
      return alreadyExists(gr, name);
    case 'Conflict':
      return conflict(gr, name, optimisticLockMessage);
    case 'TooOld':
      return expired(error.message);
    case 'TooLarge':
      return tooLargeResourceVersion(error.message);
    case 'Unavailable':
      return serviceUnavailable('the storage backend is unavailable; retry shortly', 1);
  }
}

/**
 * As {@link interpretStorageError}, for a read at exactly a resourceVersion (a get or a
 * list): one older than the retained history is the 410 kube's etcd3 store answers for
 * a compacted revision, worded as its (`The resourceVersion for the provided list is
 * too old.`).
 */
export function interpretReadError(error: unknown, gr: GroupResource, name: string, verb: 'get' | 'list'): unknown {
  if (error instanceof StorageError && error.code === 'TooOld') return expired(`The resourceVersion for the provided ${verb} is too old.`);
  return interpretStorageError(error, gr, name);
}

/**
 * A watcher whose storage errors (compaction, outage) arrive as API errors. Its iterator
 * passes each step of storage's through, without the suspensions of a generator's
 * `yield*`: every delivery to every watcher goes this way.
 */
export function translatedWatcher(gr: GroupResource, watcher: StorageWatcher): StorageWatcher {
  const translate = (error: unknown): never => {
    throw interpretStorageError(error, gr, '');
  };
  return {
    stop: () => watcher.stop(),
    pending: () => watcher.pending(),
    [Symbol.asyncIterator]: () => {
      const events = watcher[Symbol.asyncIterator]();
      return {
        next: () => events.next().catch(translate),
        return: async () => (await events.return?.()) ?? { value: undefined, done: true },
      };
    },
  };
}
