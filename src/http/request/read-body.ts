/**
 * Reads a request body with kube-apiserver's size limit.
 */
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { maxRequestBodyBytes } from '../../machinery/decoding/bounded-decoding.js';
import { requestEntityTooLarge } from '../../machinery/errors.js';

/** kube's `limitedReadBody` refusal. */
const tooLarge = (limit: number) => requestEntityTooLarge(`Request entity too large: limit is ${limit}`);

/**
 * Reads the whole body as bytes, for serializers that read binary (Protocol Buffers); 413
 * past the limit: before reading anything when the Content-Length says so, at the limit
 * when a body of unannounced length (chunked, HTTP/2) reaches it.
 */
export async function readBodyBytes(req: IncomingMessage | Http2ServerRequest, limit = maxRequestBodyBytes): Promise<Buffer> {
  if (Number(req.headers['content-length']) > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Reads the whole body as UTF-8 (JSON, YAML, text); 413 past the limit. */
export async function readBody(req: IncomingMessage | Http2ServerRequest, limit = maxRequestBodyBytes): Promise<string> {
  return (await readBodyBytes(req, limit)).toString('utf8');
}
