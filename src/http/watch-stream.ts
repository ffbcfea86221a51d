/**
 * The wire side of a watch: a streamed response of newline-delimited
 * `{"type","object"}` events, one chunk per event.
 */
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import type { Status } from '../machinery/status.js';
import { ResponseStream } from './response-stream.js';

/** A watch event on the wire. */
export interface WireEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: unknown;
}

/** A response that carries watch events. */
export class WatchStream {
  readonly #stream: ResponseStream;

  constructor(res: ServerResponse | Http2ServerResponse) {
    this.#stream = new ResponseStream(res);
  }

  /** Resolves when the client has gone or the stream was ended. */
  get closed(): Promise<void> {
    return this.#stream.closed;
  }

  /** Sends the 200 and its headers now: a watch with nothing to say yet must not leave the client waiting. */
  open(): void {
    this.#stream.open('application/json');
  }

  /** Writes one event; waits while the client is not reading. */
  send(event: WireEvent): Promise<void> {
    return this.#stream.write(`${JSON.stringify(event)}\n`);
  }

  /** Sends an ERROR event carrying `status`. */
  sendError(status: Status): Promise<void> {
    return this.send({ type: 'ERROR', object: status });
  }

  /** Ends the stream cleanly. */
  end(): void {
    this.#stream.end();
  }
}
