/**
 * A response written piece by piece (watch events, a whole list's chunks, log lines):
 * headers flushed at once, backpressure honoured, and the client's departure detected on
 * the response, not the request. A watch gives each write a drain timeout: a client that
 * does not take an event in time is cut off, as kube's cacher ends an unresponsive watcher.
 */
import { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';

type Response = ServerResponse | Http2ServerResponse;

/** A streamed 200 response. */
export class ResponseStream {
  readonly #res: Response;
  readonly #closed: Promise<void>;
  #isClosed = false;

  constructor(res: Response) {
    this.#res = res;
    this.#closed = new Promise((resolve) => {
      res.once('close', () => {
        this.#isClosed = true;
        resolve();
      });
    });
  }

  /** Resolves when the client has gone or the stream was ended. */
  get closed(): Promise<void> {
    return this.#closed;
  }

  /** Sends the 200 and its headers now: a stream with nothing to say yet must not leave the client waiting. */
  open(contentType: string): void {
    const res = this.#res as ServerResponse;
    res.statusCode = 200;
    res.setHeader('Content-Type', contentType);
    res.setHeader('Cache-Control', 'no-cache, private');
    res.flushHeaders();
  }

  /**
   * Writes one chunk and, with `flush` (the default), sends what was written at once;
   * waits while the client is not reading: true when the socket took it, else a promise
   * of true at the next drain or of false when the client has not taken what is
   * buffered within `drainTimeoutMs`.
   *
   * On HTTP/1.1 Node's response corks its socket at a write and uncorks it on the next
   * tick, which comes only once every promise reaction queued meanwhile has run: an
   * append that wakes a thousand watchers would hold every watcher's event until the
   * last watcher's had been made, and their clients would read nothing meanwhile.
   * Flushed here, an event leaves as soon as it is written; a watch flushes when no
   * further event is at hand, as kube's does, so a batch goes out in one write.
   */
  write(chunk: string | Uint8Array, drainTimeoutMs?: number, flush = true): true | Promise<boolean> {
    if (this.#isClosed) return true;
    const res = this.#res;
    const ok = (res as ServerResponse).write(chunk);
    if (flush && res instanceof ServerResponse && res.socket !== null && res.socket.writableCorked > 0) res.socket.uncork();
    return ok || this.#drained(drainTimeoutMs);
  }

  /**
   * Resolves true at the next 'drain' or 'close', false when `timeoutMs` passes first,
   * removing the listeners either way: a `Promise.race` with the long-lived `closed`
   * promise would add a reaction to it at every wait, kept until the stream ends.
   */
  #drained(timeoutMs?: number): Promise<boolean> {
    const res = this.#res as ServerResponse;
    return new Promise((resolve) => {
      if (this.#isClosed) return resolve(true);
      const done = (drained: boolean) => (): void => {
        clearTimeout(timer);
        res.off('drain', onDrain);
        res.off('close', onDrain);
        resolve(drained);
      };
      const onDrain = done(true);
      const timer = timeoutMs === undefined ? undefined : setTimeout(done(false), timeoutMs);
      res.on('drain', onDrain);
      res.on('close', onDrain);
    });
  }

  /** Ends the stream cleanly. */
  end(): void {
    if (!this.#isClosed) (this.#res as ServerResponse).end();
  }

  /** Cuts the stream, so the client sees it incomplete rather than ended. */
  abort(): void {
    if (!this.#isClosed) this.#res.destroy();
  }
}
