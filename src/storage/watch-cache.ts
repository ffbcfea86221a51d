/**
 * The in-memory tail of the event log. One poller per process appends events in
 * resourceVersion order; watchers read what follows their cursor from here, or from
 * the database when their cursor is older than what the cache covers.
 */
import type { LogEvent } from './log-event.js';

/** A bounded, ordered window of recent events. */
export class WatchCache {
  readonly #capacity: number;
  #events: LogEvent[] = [];
  #head = 0;
  /** Every event with rv > coveredFrom and rv <= newest is in the cache. */
  #coveredFrom: bigint;
  #newest: bigint;
  #waiters = new Set<() => void>();

  constructor(startResourceVersion: bigint, capacity = 10_000) {
    this.#coveredFrom = startResourceVersion;
    this.#newest = startResourceVersion;
    this.#capacity = capacity;
  }

  /** The newest resourceVersion read from the log. */
  get newest(): bigint {
    return this.#newest;
  }

  /** Appends events that follow `newest`, in order; wakes the waiting watchers. */
  append(events: readonly LogEvent[]): void {
    if (events.length === 0) return;
    for (const event of events) {
      if (event.rv <= this.#newest) continue;
      this.#events.push(event);
      this.#newest = event.rv;
    }
    const overflow = this.#events.length - this.#head - this.#capacity;
    if (overflow > 0) {
      this.#head += overflow;
      this.#coveredFrom = this.#events[this.#head - 1]!.rv;
      // Reclaim the dropped prefix in one move once it is large, so append stays O(1) amortized.
      if (this.#head > this.#capacity) {
        this.#events = this.#events.slice(this.#head);
        this.#head = 0;
      }
    }
    this.#wake();
  }

  /**
   * The events after `rv` (at most `max`), or `undefined` when the cache does not
   * reach back that far and the caller must read the database.
   */
  after(rv: bigint, max = 500): readonly LogEvent[] | undefined {
    if (rv < this.#coveredFrom) return undefined;
    if (rv >= this.#newest) return [];
    // Binary search for the first event with rv greater than the cursor.
    let lo = this.#head;
    let hi = this.#events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#events[mid]!.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return this.#events.slice(lo, lo + max);
  }

  /** Resolves at the next append, or when `signal` aborts. */
  changed(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const done = (): void => {
        this.#waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.#waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Wakes every waiter without new events (shutdown, errors). */
  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  /** Ends every wait; used when the store closes. */
  close(): void {
    this.#wake();
  }
}
