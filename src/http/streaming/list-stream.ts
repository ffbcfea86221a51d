/**
 * A JSON list written as its pages are read: the list's envelope, then its items as
 * they come, then the end. The response is the same document an unpaged list answers,
 * but the server holds one page of it at a time, not the whole collection twice over
 * (objects and their serialization).
 */
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import { ResponseStream } from './response-stream.js';

/** The start of a JSON list, up to its first item: what an unpaged list's serialization starts with. */
export function jsonListHead(apiVersion: string, kind: string, metadata: Readonly<Record<string, unknown>>): string {
  return `{"apiVersion":${JSON.stringify(apiVersion)},"kind":${JSON.stringify(kind)},"metadata":${JSON.stringify(metadata)},"items":[`;
}

/** The end of a JSON list, after its last item. */
export const jsonListTail = ']}';

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
    await this.#stream.write(jsonListHead(apiVersion, kind, metadata));
  }

  /** Appends items; waits while the client is not reading. */
  write(items: readonly unknown[]): Promise<void> {
    return this.writeJson(items.map((item) => JSON.stringify(item)));
  }

  /** Appends items already in JSON (as storage's `listJson` reads them); waits while the client is not reading. */
  async writeJson(items: readonly string[]): Promise<void> {
    if (items.length === 0) return;
    const text = items.join(',');
    await this.#stream.write(this.#first ? text : `,${text}`);
    this.#first = false;
  }

  /** Ends the list and the response. */
  async end(): Promise<void> {
    await this.#stream.write(jsonListTail);
    this.#stream.end();
  }

  /** Cuts the response: a list that could not be read to its end must not look complete. */
  abort(): void {
    this.#stream.abort();
  }
}
