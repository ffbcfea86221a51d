/**
 * The in-memory tail of the event log. One poller per process appends events in
 * resourceVersion order; watchers read what follows their cursor from here, or from
 * the database when their cursor is older than what the cache covers.
 */
import type { EventLogEntry } from './event-log-entry.js';

/**
 * Told of every append, synchronously and in order: the events the cache took (those
 * after its previous `newest`), and its `newest` after them. The current objects of
 * each resource ({@link ObjectCache}) are kept this way, from the same stream as the
 * watchers'.
 */
export type AppendListener = (events: readonly EventLogEntry[], newest: bigint) => void;

/**
 * A watcher's standing registration with the cache, made once for its whole life: what
 * it follows, and its one wait at a time. Keeping it saves every wait the work of
 * naming its interest and of listening on the watcher's signal, which at a thousand
 * watchers woken per event was a measurable part of each delivery.
 */
export interface CacheFollower {
  /**
   * Resolves at the next append of an event the follower follows, when its signal
   * aborts, or at `deadline` (ms since the epoch: the watcher's next bookmark); at once
   * while the cache holds events after `cursor` (where the watcher has read to). It
   * resolves with the resourceVersion through which nothing the follower follows was
   * appended since it began waiting: the events of other resources and namespaces in
   * between are none of its business, so it passes them without reading them, even
   * after the cache dropped them; or undefined when it must read on from `cursor`.
   * One wait at a time.
   */
  wait(cursor: bigint, deadline?: number): Promise<bigint | undefined>;
}

/** The bounds of the window: the most events it keeps, and for how long at most. */
export interface WatchCacheBounds {
  /** The most events kept (kube's watch cache sizes); 10,000 by default. */
  readonly capacity?: number;
  /** How long an event is kept after its append, in ms; no limit by default. */
  readonly maxAgeMs?: number;
  /** The clock the ages are read on (ms since the epoch): tests' own. */
  readonly now?: () => number;
}

/**
 * A bounded, ordered window of recent events, by count and by age: what a watcher
 * from before the window needs is read from the event log instead, which keeps it for
 * the retention window.
 */
export class WatchCache {
  readonly #capacity: number;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  /** When each slot of `#events` was appended (ms since the epoch). */
  #appendedAt: number[] = [];
  readonly #listeners = new Set<AppendListener>();
  /** Events taken, by resource, since the cache was made (`apiserver_watch_cache_events_received_total`). */
  readonly #received = new Map<string, number>();
  /** Slots before `#head` are dropped (undefined); every slot from `#head` on holds an event. */
  #events: (EventLogEntry | undefined)[] = [];
  #head = 0;
  /** Every event with rv > coveredFrom and rv <= newest is in the cache. */
  #coveredFrom: bigint;
  #newest: bigint;
  /** The waiting followers that must wake by a deadline (ms since the epoch). */
  readonly #deadlines = new Set<Follower>();
  /**
   * The waiting followers by what they follow (`resource`, or `resource\0namespace`), so an
   * append wakes only those its events concern, as kube's cacher dispatches by its
   * indexes: a thousand watchers of other namespaces are not woken for each event.
   */
  readonly #interested = new Map<string, Set<Follower>>();
  /**
   * One timer, for the earliest deadline among the waiters, rather than one per wait:
   * Node keeps a timer list per distinct duration, and keeps an unref'd one, even
   * emptied, until that duration has passed.
   */
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;

  constructor(startResourceVersion: bigint, bounds: WatchCacheBounds = {}) {
    this.#coveredFrom = startResourceVersion;
    this.#newest = startResourceVersion;
    this.#capacity = bounds.capacity ?? 10_000;
    this.#maxAgeMs = bounds.maxAgeMs ?? Infinity;
    this.#now = bounds.now ?? Date.now;
  }

  /** The newest resourceVersion read from the log: every event up to it is in the cache, or was before it. */
  get newest(): bigint {
    return this.#newest;
  }

  /** The most events the cache keeps. */
  get capacity(): number {
    return this.#capacity;
  }

  /** How long it keeps an event at most, in ms (Infinity: as long as its capacity allows). */
  get maxAgeMs(): number {
    return this.#maxAgeMs;
  }

  /** The events it holds now. */
  get size(): number {
    this.#drop(0);
    return this.#events.length - this.#head;
  }

  /** How many events of each resource the cache has taken. */
  received(): ReadonlyMap<string, number> {
    return new Map(this.#received);
  }

  /** Calls `listener` at every append from now on; returns a function that stops it. */
  onAppend(listener: AppendListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Appends events that follow `newest`, in order; wakes the waiting watchers. With
   * `through`, the caller knows every event up to it is among `events` (a batch this
   * process committed, whose unused resourceVersions have no event): `newest` becomes it.
   */
  append(events: readonly EventLogEntry[], through?: bigint): void {
    const before = this.#newest;
    const start = this.#events.length;
    const now = this.#now();
    for (const event of events) {
      if (event.rv <= this.#newest) continue;
      this.#events.push(event);
      this.#appendedAt.push(now);
      this.#newest = event.rv;
      this.#received.set(event.resource, (this.#received.get(event.resource) ?? 0) + 1);
    }
    if (through !== undefined && through > this.#newest) this.#newest = through;
    if (this.#newest === before) return;
    const taken = this.#events.length === start ? [] : (this.#events.slice(start) as EventLogEntry[]);
    for (const listener of this.#listeners) listener(taken, this.#newest);
    if (taken.length === 0) return;
    this.#drop(this.#events.length - this.#head - this.#capacity);
    this.#dispatch(taken);
  }

  /** Drops the oldest `overflow` events, and any older than the window's age. */
  #drop(overflow: number): void {
    let count = Math.max(0, overflow);
    const oldest = this.#now() - this.#maxAgeMs;
    while (this.#head + count < this.#events.length && this.#appendedAt[this.#head + count] < oldest) count++;
    if (count === 0) return;
    this.#coveredFrom = this.#events[this.#head + count - 1]!.rv;
    // Release the dropped events now: the cache holds `capacity` events, not up to twice that.
    this.#events.fill(undefined, this.#head, this.#head + count);
    this.#head += count;
    // Reclaim the dropped prefix's slots in one move once it is large, so append stays O(1) amortized.
    if (this.#head > this.#capacity || this.#head === this.#events.length) {
      this.#events = this.#events.slice(this.#head);
      this.#appendedAt = this.#appendedAt.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Wakes each waiter that one of `events` concerns, with the resourceVersion just before the first such event. */
  #dispatch(events: readonly EventLogEntry[]): void {
    for (const event of events) {
      const through = event.rv - 1n;
      this.#wakeAll(event.resource, through);
      this.#wakeAll(`${event.resource}\0${event.namespace}`, through);
    }
  }

  /** Wakes every follower waiting on `key`: the set is taken whole, and each wait that follows makes its own entry again. */
  #wakeAll(key: string, through: bigint | undefined): void {
    const waiting = this.#interested.get(key);
    if (waiting === undefined) return;
    this.#interested.delete(key);
    for (const follower of waiting) this.#wakeOne(follower, through, false);
  }

  /** Ends `follower`'s wait with `through`; `listed`: it is still in its key's set. */
  #wakeOne(follower: Follower, through: bigint | undefined, listed: boolean): void {
    if (listed) {
      const waiting = this.#interested.get(follower.key);
      if (waiting?.delete(follower) && waiting.size === 0) this.#interested.delete(follower.key);
    }
    if (follower.deadline !== Infinity) this.#deadlines.delete(follower);
    follower.resolve(through);
  }

  /**
   * The events after `rv` (at most `max`), or `undefined` when the cache does not
   * reach back that far and the caller must read the database.
   */
  after(rv: bigint, max = 500): readonly EventLogEntry[] | undefined {
    this.#drop(0);
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
   * Registers a watcher of `resource` (in `namespace`; every namespace when undefined)
   * for the life of `signal`: its waits are woken by the appends of what it follows.
   * A watcher waits once per batch for as long as it lives, so a wait leaves nothing
   * behind once it resolves, and the signal is listened to once, not once per wait:
   * composing `AbortSignal.any([signal, AbortSignal.timeout(ms)])` per wait instead kept
   * each wait's signals alive until the timeout fired and a finalization record on the
   * watcher's signal for the watcher's whole life.
   */
  follow(signal: AbortSignal, resource: string, namespace: string | undefined): CacheFollower {
    const follower = new Follower(namespace === undefined ? resource : `${resource}\0${namespace}`, (f, cursor, deadline) => {
      if (signal.aborted || cursor < this.#newest) return f.resolve(undefined);
      let waiting = this.#interested.get(f.key);
      if (waiting === undefined) this.#interested.set(f.key, (waiting = new Set()));
      waiting.add(f);
      if (deadline !== Infinity) {
        this.#deadlines.add(f);
        if (deadline < this.#timerAt) this.#schedule(deadline);
      }
    });
    signal.addEventListener(
      'abort',
      () => {
        if (follower.waiting) this.#wakeOne(follower, undefined, true);
      },
      { once: true },
    );
    return follower;
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
    for (const follower of [...this.#deadlines]) {
      // Nothing it follows was appended while it waited, or an append would have woken it.
      if (follower.deadline <= now) this.#wakeOne(follower, this.#newest, true);
      else if (follower.deadline < next) next = follower.deadline;
    }
    this.#schedule(next);
  }

  /** Wakes every waiter to read on from its own cursor (a restart, shutdown). */
  #wake(): void {
    for (const key of [...this.#interested.keys()]) this.#wakeAll(key, undefined);
  }

  /**
   * Starts the cache again after `rv`, empty: the events between `newest` and `rv` are
   * gone from the log (compacted before the cache read them). Watchers behind `rv`
   * then read the log, which tells them it is too old. What listeners derived from the
   * events is the caller's to drop.
   */
  restart(rv: bigint): void {
    this.#events = [];
    this.#head = 0;
    this.#coveredFrom = rv;
    this.#newest = rv;
    this.#wake();
  }

  /** Ends every wait; used when the store closes. */
  close(): void {
    this.#schedule(Infinity);
    this.#wake();
  }
}

/** A follower's state: its key, and its wait while one is under way. */
class Follower implements CacheFollower {
  readonly key: string;
  readonly #start: (follower: Follower, cursor: bigint, deadline: number) => void;
  #resolve: ((through: bigint | undefined) => void) | undefined;
  /** When the wait under way must end at the latest (Infinity: no limit). */
  deadline = Infinity;

  constructor(key: string, start: (follower: Follower, cursor: bigint, deadline: number) => void) {
    this.key = key;
    this.#start = start;
  }

  get waiting(): boolean {
    return this.#resolve !== undefined;
  }

  wait(cursor: bigint, deadline = Infinity): Promise<bigint | undefined> {
    if (this.#resolve !== undefined) throw new Error('a follower waits once at a time');
    return new Promise((resolve) => {
      this.#resolve = resolve;
      this.deadline = deadline;
      this.#start(this, cursor, deadline);
    });
  }

  /** Ends the wait under way. */
  resolve(through: bigint | undefined): void {
    const resolve = this.#resolve;
    this.#resolve = undefined;
    this.deadline = Infinity;
    resolve?.(through);
  }
}
