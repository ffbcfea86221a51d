/**
 * A work queue of object keys, like client-go's workqueue: a key added many times
 * before a worker takes it is handed out once (changes coalesce), a key is never
 * handed to two workers at once (added while in work, it comes back after `done`),
 * and a key is handed out at most once per `intervalMs` — the controller's tick, which
 * paces the simulated runners and any retries.
 */

/** Options of a WorkQueue. */
export interface WorkQueueOptions {
  /** The least time between two hand-outs of one key, in ms. */
  readonly intervalMs: number;
}

/**
 * A coalescing, paced queue of keys.
 *
 * @example
 * const queue = new WorkQueue<string>({ intervalMs: 500 });
 * queue.add('default/ingest');
 * for (let key; (key = await queue.get()) !== undefined; queue.done(key)) await reconcile(key);
 */
export class WorkQueue<K> {
  readonly #intervalMs: number;
  /** Keys due now, in order. */
  readonly #due: K[] = [];
  /** Keys added and not yet handed out: due, waiting for their interval, or waiting for `done`. */
  readonly #pending = new Set<K>();
  readonly #working = new Set<K>();
  readonly #timers = new Map<K, NodeJS.Timeout>();
  /** When each key was last handed out, kept for `intervalMs`. */
  readonly #lastHandedOut = new Map<K, number>();
  readonly #waiting: Array<(key: K | undefined) => void> = [];
  #shutDown = false;

  constructor(options: WorkQueueOptions) {
    this.#intervalMs = options.intervalMs;
  }

  /** How many keys wait to be handed out (client-go's `workqueue_depth`). */
  get depth(): number {
    return this.#pending.size;
  }

  /** Queues `key`, unless it already is. */
  add(key: K): void {
    if (this.#shutDown || this.#pending.has(key)) return;
    this.#pending.add(key);
    if (!this.#working.has(key)) this.#schedule(key);
  }

  /** The next key to work on, once one is due; undefined once the queue is shut down. */
  get(): Promise<K | undefined> {
    const key = this.#due.shift();
    if (key !== undefined) return Promise.resolve(this.#handOut(key));
    if (this.#shutDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Marks the work on `key` finished; a key added meanwhile is scheduled again. */
  done(key: K): void {
    this.#working.delete(key);
    if (this.#pending.has(key)) this.#schedule(key);
  }

  /** Stops handing out keys: waiting and later `get` calls resolve to undefined. */
  shutDown(): void {
    this.#shutDown = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#due.length = 0;
    for (const resolve of this.#waiting.splice(0)) resolve(undefined);
  }

  #schedule(key: K): void {
    const last = this.#lastHandedOut.get(key);
    const wait = last === undefined ? 0 : last + this.#intervalMs - Date.now();
    if (wait <= 0) {
      this.#makeDue(key);
      return;
    }
    this.#timers.set(
      key,
      setTimeout(() => {
        this.#timers.delete(key);
        this.#makeDue(key);
      }, wait),
    );
  }

  #makeDue(key: K): void {
    const waiter = this.#waiting.shift();
    if (waiter) waiter(this.#handOut(key));
    else this.#due.push(key);
  }

  #handOut(key: K): K {
    this.#pending.delete(key);
    this.#working.add(key);
    const now = Date.now();
    this.#lastHandedOut.set(key, now);
    // Forget the time once it no longer paces anything, so deleted objects' keys do not pile up.
    setTimeout(() => {
      if (this.#lastHandedOut.get(key) === now) this.#lastHandedOut.delete(key);
    }, this.#intervalMs).unref();
    return key;
  }
}
