/**
 * The wire side of a watch: a streamed response of events, one chunk per event, as
 * `WatchEncoder` frames them.
 */
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import { ResponseStream } from './response-stream.js';
import type { Frame } from './watch-encoder.js';

/** A response that carries watch events. */
export class WatchStream {
  readonly #stream: ResponseStream;
  readonly #mediaType: string;

  /** `mediaType`: the media type of the frames (`WatchEncoder.mediaType`). */
  constructor(res: ServerResponse | Http2ServerResponse, mediaType: string) {
    this.#stream = new ResponseStream(res);
    this.#mediaType = mediaType;
  }

  /** Resolves when the client has gone or the stream was ended. */
  get closed(): Promise<void> {
    return this.#stream.closed;
  }

  /** Sends the 200 and its headers now: a watch with nothing to say yet must not leave the client waiting. */
  open(): void {
    this.#stream.open(this.#mediaType);
  }

  /**
   * Writes one event's frame; waits while the client is not reading, for at most
   * `drainTimeoutMs` when given. Resolves false when the client took longer: the
   * caller ends the watch, as kube's cacher terminates a watcher whose buffer stays
   * full, so what a stuck client costs stays bounded and it re-watches from where it is.
   */
  send(frame: Frame, drainTimeoutMs?: number): Promise<boolean> {
    return this.#stream.write(frame, drainTimeoutMs);
  }

  /** Ends the stream cleanly. */
  end(): void {
    this.#stream.end();
  }
}
