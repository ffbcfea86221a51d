/**
 * A watch client for tests: opens a watch over HTTPS with the admin certificate and
 * collects its newline-delimited events (or only counts them, when there are many).
 */
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { RunningServer } from '../../src/server/server.js';
import type { ServerEndpoint } from './test-server.js';

/** One received watch event. */
export interface ReceivedEvent {
  readonly type: string;
  readonly object: any;
}

/** An open watch. */
export interface TestWatch {
  readonly status: number;
  readonly events: ReceivedEvent[];
  /** Resolves when the server ended the stream. */
  readonly ended: Promise<void>;
  /** Waits until `count` events arrived; rejects after `ms`. */
  waitFor(count: number, ms?: number): Promise<ReceivedEvent[]>;
  close(): void;
}

/** Opens `path` (which should carry `watch=true`) and resolves once the response headers arrived. */
export function openWatch(server: RunningServer, path: string, headers: Record<string, string> = {}): Promise<TestWatch> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${server.url}${path}`,
      { ca: server.pki.servingCaPem, cert: server.pki.adminCertPem, key: server.pki.adminKeyPem, agent: false, headers },
      (res: IncomingMessage) => {
        const events: ReceivedEvent[] = [];
        const listeners = new Set<() => void>();
        let buffer = '';
        let endedResolve!: () => void;
        const ended = new Promise<void>((r) => (endedResolve = r));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let newline;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, newline);
            buffer = buffer.slice(newline + 1);
            if (line.trim()) events.push(JSON.parse(line) as ReceivedEvent);
          }
          for (const l of listeners) l();
        });
        res.on('end', () => {
          if (buffer.trim()) events.push(JSON.parse(buffer) as ReceivedEvent);
          endedResolve();
          for (const l of listeners) l();
        });
        res.on('close', () => endedResolve());
        resolve({
          status: res.statusCode ?? 0,
          events,
          ended,
          waitFor(count, ms = 10_000) {
            return new Promise((ok, fail) => {
              const check = (): void => {
                if (events.length >= count) {
                  cleanup();
                  ok(events.slice(0, count));
                }
              };
              const timer = setTimeout(() => {
                cleanup();
                fail(new Error(`waited ${ms} ms for ${count} events, got ${events.length}: ${JSON.stringify(events.map((e) => e.type))}`));
              }, ms);
              const cleanup = (): void => {
                clearTimeout(timer);
                listeners.delete(check);
              };
              listeners.add(check);
              check();
            });
          },
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A watch that counts its events instead of keeping them, for tests that deliver many. */
export interface CountingWatch {
  readonly status: number;
  /** How many events of `type` arrived. */
  count(type: string): number;
  /** Waits until `count` events of `type` arrived; rejects after `ms`. */
  waitFor(count: number, type: string, ms?: number): Promise<void>;
  close(): void;
}

/** Opens `path` (which should carry `watch=true`) and resolves once the response headers arrived. */
export function openCountingWatch(server: ServerEndpoint, path: string): Promise<CountingWatch> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${server.url}${path}`,
      { ca: server.pki.servingCaPem, cert: server.pki.adminCertPem, key: server.pki.adminKeyPem, agent: false },
      (res: IncomingMessage) => {
        const counts = new Map<string, number>();
        const listeners = new Set<() => void>();
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let newline;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, newline);
            buffer = buffer.slice(newline + 1);
            if (!line.trim()) continue;
            const { type } = JSON.parse(line) as ReceivedEvent;
            counts.set(type, (counts.get(type) ?? 0) + 1);
          }
          for (const l of listeners) l();
        });
        resolve({
          status: res.statusCode ?? 0,
          count: (type) => counts.get(type) ?? 0,
          waitFor(count, type, ms = 30_000) {
            return new Promise((ok, fail) => {
              const check = (): void => {
                if ((counts.get(type) ?? 0) < count) return;
                cleanup();
                ok();
              };
              const timer = setTimeout(() => {
                cleanup();
                fail(new Error(`waited ${ms} ms for ${count} ${type} events, got ${counts.get(type) ?? 0}`));
              }, ms);
              const cleanup = (): void => {
                clearTimeout(timer);
                listeners.delete(check);
              };
              listeners.add(check);
              check();
            });
          },
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
