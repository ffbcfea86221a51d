/**
 * The wire side of a watch: a streamed response of `{"type","object"}` events, one
 * chunk per event, each encoded and framed by the stream's serializer (JSON: one per line).
 */
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import type { Status } from '../../machinery/status.js';
import { ResponseStream } from './response-stream.js';
import { jsonSerializer } from '../serializers/json-serializer.js';
import type { Serializer, StreamFramer } from '../serializers/serializer.js';

/** A watch event on the wire. */
export interface WireEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: unknown;
}

/** A response that carries watch events. */
export class WatchStream {
  readonly #stream: ResponseStream;
  readonly #serializer: Serializer;
  readonly #framer: StreamFramer;

  /** `serializer` must stream (have a framer): negotiation offers watches no other. */
  constructor(res: ServerResponse | Http2ServerResponse, serializer: Serializer = jsonSerializer) {
    if (!serializer.streamFramer) throw new Error(`${serializer.mediaType} cannot carry a watch stream`);
    this.#stream = new ResponseStream(res);
    this.#serializer = serializer;
    this.#framer = serializer.streamFramer;
  }

  /** Resolves when the client has gone or the stream was ended. */
  get closed(): Promise<void> {
    return this.#stream.closed;
  }

  /** Sends the 200 and its headers now: a watch with nothing to say yet must not leave the client waiting. */
  open(): void {
    this.#stream.open(this.#serializer.mediaType);
  }

  /** Writes one event; waits while the client is not reading. */
  send(event: WireEvent): Promise<void> {
    return this.#stream.write(this.#framer.frame(this.#serializer.encode(event)));
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
