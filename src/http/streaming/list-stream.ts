/**
 * A JSON list written as its pages are read: the list's envelope, then its items as
 * they come, then the end. The response is the same document an unpaged list answers,
 * but the server holds one page of it at a time, not the whole collection twice over
 * (objects and their serialization).
 */
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import { ResponseStream } from './response-stream.js';

/** Writes one JSON list, item by item. */
export class ListStream {
  readonly #stream: ResponseStream;
  #first = true;

  constructor(res: ServerResponse | Http2ServerResponse) {
    this.#stream = new ResponseStream(res);
  }

  /** Sends the 200, its headers and the list's fields up to its items. */
  async open(apiVersion: string, kind: string, metadata: Readonly<Record<string, unknown>>): Promise<void> {
    this.#stream.open('application/json');
    await this.#stream.write(`{"apiVersion":${JSON.stringify(apiVersion)},"kind":${JSON.stringify(kind)},"metadata":${JSON.stringify(metadata)},"items":[`);
  }

  /** Appends items; waits while the client is not reading. */
  async write(items: readonly unknown[]): Promise<void> {
    if (items.length === 0) return;
    const text = items.map((item) => JSON.stringify(item)).join(',');
    await this.#stream.write(this.#first ? text : `,${text}`);
    this.#first = false;
  }

  /** Ends the list and the response. */
  async end(): Promise<void> {
    await this.#stream.write(']}');
    this.#stream.end();
  }

  /** Cuts the response: a list that could not be read to its end must not look complete. */
  abort(): void {
    this.#stream.abort();
  }
}
