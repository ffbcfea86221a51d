/**
 * A streamed response's chunk leaves at once: Node's HTTP/1.1 response corks its socket
 * at a write until the next tick, and a watch event written while a fan-out runs must
 * not wait for the whole fan-out to end before its client can read it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ResponseStream } from './response-stream.js';

describe('ResponseStream', () => {
  let server: http.Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('sends each chunk when it is written, not on the next tick, and the client reads them all', async () => {
    const corked: number[] = [];
    server = http.createServer((_req, res) => {
      const stream = new ResponseStream(res);
      stream.open('application/json');
      for (const line of ['{"n":1}\n', '{"n":2}\n']) {
        expect(stream.write(line)).toBe(true);
        corked.push(res.socket!.writableCorked);
      }
      stream.end();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const body = await new Promise<string>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: '/' }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve(text));
        })
        .on('error', reject);
    });
    expect(body).toBe('{"n":1}\n{"n":2}\n');
    expect(corked).toEqual([0, 0]);
  });
});
