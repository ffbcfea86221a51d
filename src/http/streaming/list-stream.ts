/**
 * A list written as its pages are read: the list's envelope, then its items as they
 * come, then the end, in the serializer's own encoding (`ListEncoder`). The response
 * is the same document an unpaged list answers, but the server holds one page of it at
 * a time, not the whole collection twice over (objects and their serialization).
 */
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import type { ListEncoder } from '../serializers/serializer.js';
import { ResponseStream } from './response-stream.js';

/** Writes one list, page by page. */
export class ListStream {
  readonly #stream: ResponseStream;
  readonly #encoder: ListEncoder;
  #first = true;

  constructor(res: ServerResponse | Http2ServerResponse, encoder: ListEncoder) {
    this.#stream = new ResponseStream(res);
    this.#encoder = encoder;
  }

  /** Sends the 200, its headers and the list up to its items; `itemsLength` when the encoder needs it. */
  async open(contentType: string, itemsLength?: number): Promise<void> {
    this.#stream.open(contentType);
    await this.#stream.write(this.#encoder.head(itemsLength));
  }

  /** Appends items; waits while the client is not reading. */
  async write(items: readonly unknown[]): Promise<void> {
    if (items.length === 0) return;
    await this.#stream.write(this.#encoder.items(items, this.#first));
    this.#first = false;
  }

  /** Ends the list and the response. */
  async end(): Promise<void> {
    await this.#stream.write(this.#encoder.tail);
    this.#stream.end();
  }

  /** Cuts the response: a list that could not be read to its end must not look complete. */
  abort(): void {
    this.#stream.abort();
  }
}
