/**
 * Reading one object's log: pages of lines in append order, and with `follow`, the
 * lines appended afterwards until the object is deleted or the reader is stopped.
 */
import type { LogLine, LogStorage, StorageWatcher } from '../storage/interfaces.js';

/** What a LogReader reads. */
export interface LogReaderOptions {
  readonly logs: LogStorage;
  readonly uid: string;
  /** Lines after this `seq` (0: from the start; the tail's start for `tailLines`). */
  readonly from: bigint;
  readonly stream?: string;
  readonly since?: Date;
  /**
   * For `follow`: a watch of the object, started before it was read. Its deletion
   * arrives there from any replica, and ends the read.
   */
  readonly objectWatch?: StorageWatcher;
}

const pageSize = 1000;

/** An open log; iterate it for pages of lines, and `stop()` it when the client leaves. */
export class LogReader implements AsyncIterable<readonly LogLine[]> {
  readonly #o: LogReaderOptions;
  readonly #abort = new AbortController();

  constructor(options: LogReaderOptions) {
    this.#o = options;
    if (options.objectWatch) void this.#endAtDeletion(options.objectWatch);
  }

  /** Ends the read (the client left, the server shuts down, or the object is gone). */
  stop(): void {
    this.#abort.abort();
    this.#o.objectWatch?.stop();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<readonly LogLine[]> {
    const { logs, uid, stream, since, objectWatch } = this.#o;
    const signal = this.#abort.signal;
    // Registered before the first read, so an append committed after that read began still wakes it.
    const follower = objectWatch && logs.follow(uid);
    try {
      let cursor = this.#o.from;
      while (!signal.aborted) {
        const page = await logs.read(uid, { after: cursor, limit: pageSize, stream, since });
        if (page.length > 0) {
          cursor = page.at(-1)!.seq;
          yield page;
        }
        if (page.length === pageSize) continue;
        if (!follower) return;
        await follower.wait(signal);
      }
    } finally {
      follower?.stop();
      this.stop();
    }
  }

  async #endAtDeletion(watcher: StorageWatcher): Promise<void> {
    try {
      for await (const event of watcher) {
        if (event.type === 'DELETED' || (event.type !== 'BOOKMARK' && event.object.metadata.uid !== this.#o.uid)) break;
      }
    } catch {
      // A watch that fails (the database is unreachable) could not report the deletion: end the follow too.
    }
    this.stop();
  }
}
