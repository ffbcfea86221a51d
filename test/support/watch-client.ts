/**
 * A watch client for tests: opens a watch as the admin user (over HTTPS with the admin
 * certificate, or over HTTP to the in-process app) and
 * collects its newline-delimited events (or only counts them, when there are many).
 */
import type { IncomingMessage } from 'node:http';
import { onJsonLines, until } from './json-lines.js';
import { requestTo, type ServerEndpoint } from './test-server.js';

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
export function openWatch(server: ServerEndpoint, path: string, headers: Record<string, string> = {}): Promise<TestWatch> {
  return new Promise((resolve, reject) => {
    const req = requestTo(server, path, { agent: false, headers }, (res: IncomingMessage) => {
      const events: ReceivedEvent[] = [];
      const listeners = new Set<() => void>();
      let endedResolve!: () => void;
      const ended = new Promise<void>((r) => (endedResolve = r));
      const notify = (): void => listeners.forEach((l) => l());
      onJsonLines(res, (event) => {
        events.push(event as ReceivedEvent);
        notify();
      });
      res.on('end', () => {
        endedResolve();
        notify();
      });
      res.on('close', () => endedResolve());
      resolve({
        status: res.statusCode ?? 0,
        events,
        ended,
        async waitFor(count, ms = 10_000) {
          await until(
            listeners,
            () => events.length >= count,
            ms,
            () => `${count} events, got ${events.length}: ${JSON.stringify(events.map((e) => e.type))}`,
          );
          return events.slice(0, count);
        },
        close: () => req.destroy(),
      });
    });
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
    const req = requestTo(server, path, { agent: false }, (res: IncomingMessage) => {
      const counts = new Map<string, number>();
      const listeners = new Set<() => void>();
      onJsonLines(res, (event) => {
        const { type } = event as ReceivedEvent;
        counts.set(type, (counts.get(type) ?? 0) + 1);
        listeners.forEach((l) => l());
      });
      resolve({
        status: res.statusCode ?? 0,
        count: (type) => counts.get(type) ?? 0,
        waitFor: (count, type, ms = 120_000) =>
          until(
            listeners,
            () => (counts.get(type) ?? 0) >= count,
            ms,
            () => `${count} ${type} events, got ${counts.get(type) ?? 0}`,
          ),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
