/**
 * Runs async work one piece at a time, in arrival order. PGlite has a single
 * connection, and Kysely's PGlite driver keeps one transaction per connection, so
 * every use of it goes through one queue.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();
  /** Pieces queued and not yet settled, the running one included. */
  #pending = 0;

  /** Runs `work` after everything queued before it has settled. */
  run<T>(work: () => Promise<T>): Promise<T> {
    this.#pending++;
    // PGlite runs on the event-loop thread: yield between pieces so requests keep flowing.
    const turn = this.#tail.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
    const result = turn.then(work).finally(() => this.#pending--);
    this.#tail = result.catch(() => undefined);
    return result;
  }

  /** How many pieces are queued or running. */
  get pending(): number {
    return this.#pending;
  }
}
