/**
 * The Koa app in process, for tests of API semantics that need no TLS: an in-memory
 * PGlite, the real registry and app, a plain HTTP listener on loopback, and an
 * authenticator that takes every request as one user (the TLS authenticators have
 * their own end-to-end tests).
 */
import { createServer, type Server } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import type { ApiGroup } from '../../src/apis/api-resource.js';
import { defaultAuthorizer } from '../../src/auth/default-authorizer.js';
import type { Authenticator } from '../../src/auth/user-info.js';
import { createApp, type AppOptions } from '../../src/http/app.js';
import { Registry } from '../../src/registry/registry.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';

/** A response, its body read in full. */
export interface InProcessResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  readonly json: any;
}

/** An app serving `groups` and how to call it. */
export interface InProcessApp {
  readonly registry: Registry;
  /** Where the app listens (`http://127.0.0.1:<port>`), for streams that `request` would wait out (watches). */
  readonly url: string;
  request(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string> }): Promise<InProcessResponse>;
}

/** The one user every in-process request is made as. */
const admin: Authenticator = { authenticate: () => ({ name: 'test-admin', groups: ['system:masters', 'system:authenticated'] }) };

/** Starts the app for the enclosing `describe` block and stops it after; `options` override the app's defaults. */
export function inProcessApp(
  groups: readonly ApiGroup[],
  options: Pick<AppOptions, 'unresponsiveWatcherTimeoutMs' | 'audit' | 'auditPolicy' | 'admission'> = {},
): () => InProcessApp {
  let app: InProcessApp | undefined;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const database = await PGliteDatabase.open();
    await migrateToLatest(database);
    const store = await SqlObjectStore.open(database);
    const registry = new Registry(groups, store);
    const shutdown = new AbortController();
    const koa = createApp({
      groups,
      registry: () => registry,
      authenticators: [admin],
      authorizer: defaultAuthorizer(),
      livezChecks: [],
      readyzChecks: [],
      logger: pino({ level: process.env.CAIRN_TEST_LOG ?? 'silent' }),
      shutdown: shutdown.signal,
      watchBookmarkIntervalMs: 60_000,
      ...options,
    });
    const server: Server = createServer(koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    app = {
      registry,
      url: base,
      async request(method, path, options = {}) {
        const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
        const response = await fetch(`${base}${path}`, {
          method,
          body,
          headers: { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...options.headers },
        });
        const text = await response.text();
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        return { status: response.status, headers: response.headers, text, json };
      },
    };
    close = async () => {
      shutdown.abort();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await store.close();
      await database.close();
    };
  });
  afterAll(async () => close?.());
  return () => {
    if (!app) throw new Error('the in-process app did not start');
    return app;
  };
}
