/** A log read kept open, as `kubectl logs -f` keeps one. */
import { performance } from 'node:perf_hooks';
import { requestTo, type ServerEndpoint } from './test-server.js';

/** A log read kept open: its text as it arrives, and when each piece arrived. */
export interface OpenLog {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The body so far. */
  text(): string;
  /** Resolves with `performance.now()` when the body first contains `marker`; rejects after `ms`. */
  arrival(marker: string, ms?: number): Promise<number>;
  /** Resolves when the server ended the response. */
  readonly ended: Promise<void>;
  close(): void;
}

/** Opens a (follow) log read and resolves once the response headers arrived. */
export function openLog(server: ServerEndpoint, path: string): Promise<OpenLog> {
  return new Promise((resolve, reject) => {
    const req = requestTo(server, path, { agent: false }, (res) => {
      let body = '';
      const listeners = new Set<() => void>();
      const ended = new Promise<void>((done) => res.on('close', done));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        for (const listener of [...listeners]) listener();
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        text: () => body,
        ended,
        arrival: (marker, ms = 10_000) =>
          new Promise((found, fail) => {
            const timer = setTimeout(() => {
              listeners.delete(check);
              fail(new Error(`waited ${ms} ms for ${JSON.stringify(marker)}, got ${JSON.stringify(body)}`));
            }, ms);
            const check = (): void => {
              if (!body.includes(marker)) return;
              clearTimeout(timer);
              listeners.delete(check);
              found(performance.now());
            };
            listeners.add(check);
            check();
          }),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
