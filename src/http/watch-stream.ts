/**
 * The wire side of a watch: a chunked response of newline-delimited
 * `{"type","object"}` events, headers flushed at once, backpressure honoured, and
 * the end detected on the response (not the request).
 */
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import type { Status } from '../machinery/status.js';

/** A watch event on the wire. */
export interface WireEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: unknown;
}

type Response = ServerResponse | Http2ServerResponse;

/** A response that carries watch events. */
export class WatchStream {
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

  /** Sends the 200 and its headers now: a watch with nothing to say yet must not leave the client waiting. */
  open(): void {
    const res = this.#res as ServerResponse;
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Cache-Control', 'no-cache, private');
    res.flushHeaders();
  }

  /** Writes one event; waits while the client is not reading. */
  async send(event: WireEvent): Promise<void> {
    if (this.#isClosed) return;
    const ok = (this.#res as ServerResponse).write(`${JSON.stringify(event)}\n`);
    if (!ok) {
      await Promise.race([new Promise((resolve) => this.#res.once('drain', resolve)), this.#closed]);
    }
  }

  /** Sends an ERROR event carrying `status`. */
  sendError(status: Status): Promise<void> {
    return this.send({ type: 'ERROR', object: status });
  }

  /** Ends the stream cleanly. */
  end(): void {
    if (!this.#isClosed) (this.#res as ServerResponse).end();
  }
}
