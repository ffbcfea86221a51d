/**
 * Wakes the followers of logs (`follow=true`) in this process: at once for a local
 * append, and every follower when another replica may have appended (its NOTIFY, or
 * the safety poll). A wake is a hint to read again; the table is the truth.
 */
import type { LogFollower } from './interfaces.js';

/** A follower whose wake is remembered until it next waits, so no append slips between a read and the wait after it. */
class Follower implements LogFollower {
  readonly #onStop: (follower: Follower) => void;
  #pending = false;
  #resolve: (() => void) | undefined;

  constructor(onStop: (follower: Follower) => void) {
    this.#onStop = onStop;
  }

  wake(): void {
    this.#pending = true;
    this.#resolve?.();
  }

  wait(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.#pending = false;
        this.#resolve = undefined;
        signal.removeEventListener('abort', done);
        resolve();
      };
      if (this.#pending || signal.aborted) return done();
      this.#resolve = done;
      signal.addEventListener('abort', done, { once: true });
    });
  }

  stop(): void {
    this.#onStop(this);
    this.wake();
  }
}

/** The followers of this process's open logs, by object uid. */
export class LogWakeups {
  readonly #followers = new Map<string, Set<Follower>>();

  /** Registers a follower of the log of `uid`. */
  follow(uid: string): LogFollower {
    let followers = this.#followers.get(uid);
    if (!followers) {
      followers = new Set();
      this.#followers.set(uid, followers);
    }
    const follower = new Follower((f) => {
      followers.delete(f);
      if (followers.size === 0 && this.#followers.get(uid) === followers) this.#followers.delete(uid);
    });
    followers.add(follower);
    return follower;
  }

  /** Lines were appended to the log of `uid` here. */
  wake(uid: string): void {
    for (const follower of this.#followers.get(uid) ?? []) follower.wake();
  }

  /** Lines may have been appended to any log elsewhere. */
  wakeAll(): void {
    for (const followers of this.#followers.values()) for (const follower of followers) follower.wake();
  }
}
