/**
 * Optimistic concurrency for status writes, like client-go's retry.RetryOnConflict:
 * write from the cached object (its resourceVersion is the precondition) and, when
 * the server answers 409 Conflict, read the object again and write from that.
 */
import { isConflict } from '../machinery/kubeclient/api-error.js';

/** How many times a write is tried before the conflict is left to the next reconcile. */
const attempts = 3;

/** Calls `write(object)`, and after a 409 `write(await read())`; returns what the last write returned. */
export async function retryOnConflict<T, R>(object: T, read: () => Promise<T>, write: (object: T) => Promise<R>): Promise<R> {
  let current = object;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write(current);
    } catch (error) {
      if (!isConflict(error) || attempt === attempts) throw error;
      current = await read();
    }
  }
}
