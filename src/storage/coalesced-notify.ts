/**
 * Wakes the other replicas listening on a channel after local commits, with at most
 * one NOTIFY in flight: commits that queue a notification serialize on one global
 * lock in Postgres, so a burst of commits sends one or two wake-ups, not one each.
 */
import type { Database } from './database.js';

/** A coalescing NOTIFY sender for one channel. */
export class CoalescedNotify {
  readonly #database: Database;
  readonly #channel: string;
  readonly #onError: (error: unknown) => void;
  readonly #payload: string;
  /** The NOTIFY loop, while one runs. */
  #sending: Promise<void> | undefined;
  #again = false;
  #closed = false;

  /** `payload` tells the listeners who sent it (a sender ignores its own wake-ups). */
  constructor(database: Database, channel: string, onError: (error: unknown) => void, payload = '') {
    this.#database = database;
    this.#channel = channel;
    this.#onError = onError;
    this.#payload = payload;
  }

  /** Asks for a NOTIFY after what has committed so far. */
  wake(): void {
    // A backend with one process has nobody to wake.
    if (this.#closed || this.#database.backend === 'pglite') return;
    if (this.#sending) {
      this.#again = true;
      return;
    }
    this.#sending = this.#send();
  }

  async #send(): Promise<void> {
    do {
      this.#again = false;
      try {
        await this.#database.notify(this.#channel, this.#payload);
      } catch (error) {
        this.#onError(error);
      }
    } while (this.#again);
    this.#sending = undefined;
  }

  /**
   * Sends nothing more, once the wake-up owed to commits so far is sent: a process
   * that exits right after writing (`npm run storage-migrate`) still wakes the others
   * at once, rather than at their next safety poll.
   */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#sending;
  }
}
