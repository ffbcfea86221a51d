/**
 * Reads a request body with kube-apiserver's size limit.
 */
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { requestEntityTooLarge } from '../machinery/errors.js';

/** kube-apiserver's limit on request bodies (3 MiB). */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

/** Reads the whole body as UTF-8; 413 past the limit. */
export async function readBody(req: IncomingMessage | Http2ServerRequest, limit = maxRequestBodyBytes): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw requestEntityTooLarge(`the request body is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
