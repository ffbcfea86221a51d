/**
 * The in-memory tail of the event log. One poller per process appends events in
 * resourceVersion order; watchers read what follows their cursor from here, or from
 * the database when their cursor is older than what the cache covers.
 */
import type { EventLogEntry } from './event-log-entry.js';

/** A bounded, ordered window of recent events. */
export class WatchCache {
  readonly #capacity: number;
  /** Slots before `#head` are dropped (undefined); every slot from `#head` on holds an event. */
  #events: (EventLogEntry | undefined)[] = [];
  #head = 0;
  /** Every event with rv > coveredFrom and rv <= newest is in the cache. */
  #coveredFrom: bigint;
  #newest: bigint;
  /** The waiting watchers, each with when it must wake at the latest (ms since the epoch; Infinity: no limit). */
  readonly #waiters = new Map<() => void, number>();
  /**
   * One timer, for the earliest deadline among the waiters, rather than one per wait:
   * Node keeps a timer list per distinct duration, and keeps an unref'd one, even
   * emptied, until that duration has passed.
   */
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;

  constructor(startResourceVersion: bigint, capacity = 10_000) {
    this.#coveredFrom = startResourceVersion;
    this.#newest = startResourceVersion;
    this.#capacity = capacity;
  }

  /** The newest resourceVersion read from the log. */
  get newest(): bigint {
    return this.#newest;
  }

  /**
   * Appends events that follow `newest`, in order; wakes the waiting watchers. With
   * `through`, the caller knows every event up to it is among `events` (a batch this
   * process committed, whose unused resourceVersions have no event): `newest` becomes it.
   */
  append(events: readonly EventLogEntry[], through?: bigint): void {
    for (const event of events) {
      if (event.rv <= this.#newest) continue;
      this.#events.push(event);
      this.#newest = event.rv;
    }
    if (through !== undefined && through > this.#newest) this.#newest = through;
    if (events.length === 0) return;
    const overflow = this.#events.length - this.#head - this.#capacity;
    if (overflow > 0) {
      this.#coveredFrom = this.#events[this.#head + overflow - 1]!.rv;
      // Release the dropped events now: the cache holds `capacity` events, not up to twice that.
      this.#events.fill(undefined, this.#head, this.#head + overflow);
      this.#head += overflow;
      // Reclaim the dropped prefix's slots in one move once it is large, so append stays O(1) amortized.
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
  after(rv: bigint, max = 500): readonly EventLogEntry[] | undefined {
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
    return this.#events.slice(lo, lo + max) as EventLogEntry[];
  }

  /**
   * Resolves at the next append, when `signal` aborts, or at `deadline` (ms since
   * the epoch: a watcher's next bookmark). A watcher waits here once per batch for as
   * long as it lives, so a wait leaves nothing behind once it resolves: composing
   * `AbortSignal.any([signal, AbortSignal.timeout(ms)])` per wait instead kept each
   * wait's signals alive until the timeout fired and a finalization record on the
   * watcher's signal for the watcher's whole life (hundreds of bytes per event).
   */
  changed(signal: AbortSignal, deadline = Infinity): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const done = (): void => {
        this.#waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.#waiters.set(done, deadline);
      signal.addEventListener('abort', done, { once: true });
      if (deadline < this.#timerAt) this.#schedule(deadline);
    });
  }

  /** (Re)arms the one timer for `at`; Infinity disarms it. */
  #schedule(at: number): void {
    clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = at === Infinity ? undefined : setTimeout(() => this.#expire(), Math.max(0, at - Date.now())).unref();
  }

  /** Wakes the waiters whose deadline has come and sets the timer for the next one. */
  #expire(): void {
    const now = Date.now();
    let next = Infinity;
    for (const [done, deadline] of this.#waiters) {
      if (deadline <= now) done();
      else if (deadline < next) next = deadline;
    }
    this.#schedule(next);
  }

  /** Wakes every waiter without new events (shutdown, errors). */
  #wake(): void {
    for (const waiter of [...this.#waiters.keys()]) waiter();
  }

  /** Ends every wait; used when the store closes. */
  close(): void {
    this.#schedule(Infinity);
    this.#wake();
  }
}
