/**
 * The Koa app in process, for tests of API semantics that need no TLS: PGlite in a
 * temporary directory (a copy of the run's empty cluster, which spares PGlite's initdb: see
 * pglite-template.ts), the real registry and app, a plain HTTP listener on loopback, and an
 * authenticator that takes every request as one user, unless a test gives its own (the
 * TLS authenticators have their own end-to-end tests).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import type { ApiGroup } from '../../src/apis/api-resource.js';
import { defaultAuthorizer } from '../../src/auth/default-authorizer.js';
import type { Authenticator } from '../../src/auth/user-info.js';
import { createApp, type AppOptions } from '../../src/http/app.js';
import { pgliteDirectory } from '../../src/server/open-database.js';
import { admissionChain } from '../../src/registry/admission.js';
import { objectLookup, Registry } from '../../src/registry/registry.js';
import type { Database } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { refreshStatistics } from '../../src/storage/table-statistics.js';
import { seedPgliteDataDir } from './pglite-template.js';
import { requestServer, type RequestOptions, type ServerEndpoint, type TestResponse } from './test-server.js';

/** An app serving `groups` and how to call it. */
export interface InProcessApp extends ServerEndpoint {
  readonly registry: Registry;
  /** The PGlite the store keeps its tables in, for tests that look at the rows. */
  readonly database: Database;
  /** The store under the registry, for tests that compact its history (as `--compaction-interval` would) when they choose. */
  readonly store: SqlObjectStore;
  /** Where the app listens (`http://127.0.0.1:<port>`); the watch and log clients take the app itself. */
  readonly url: string;
  /** Makes a request as the one user; the same answers as a real server's `request`. */
  request(method: string, path: string, options?: Omit<RequestOptions, 'clientCert'>): Promise<TestResponse>;
}

/** The app options a test may set, as the server's flags of the same names would. */
export type InProcessAppOptions = Partial<
  Pick<
    AppOptions,
    | 'unresponsiveWatcherTimeoutMs'
    | 'audit'
    | 'auditPolicy'
    | 'admission'
    | 'watchBookmarkIntervalMs'
    | 'requestTimeoutMs'
    | 'inFlightLimits'
    | 'authenticators'
  >
> & {
  /** The events the store's watch cache keeps (`--watch-cache-size`): a small one makes watches read history from the database. */
  readonly watchCacheCapacity?: number;
};

/** The one user every in-process request is made as. */
const admin: Authenticator = { authenticate: () => ({ name: 'test-admin', groups: ['system:masters', 'system:authenticated'] }) };

/**
 * Starts the app for the enclosing `describe` block and stops it after; `options` override
 * the app's defaults. As a standalone server on embedded PGlite: the store is the database's
 * only writer, the groups' own admission plugins run, and the registry's default objects
 * (the `standard` RunnerClass) exist before the first request.
 */
export function inProcessApp(groups: readonly ApiGroup[], { watchCacheCapacity, ...options }: InProcessAppOptions = {}): () => InProcessApp {
  let app: InProcessApp | undefined;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cairn-in-process-'));
    await seedPgliteDataDir(dataDir);
    const database = await PGliteDatabase.open(pgliteDirectory(dataDir));
    await migrateToLatest(database);
    await refreshStatistics(database);
    // As a server on embedded PGlite opens it: the database is this process's alone, so its own writes are all there is to wait for.
    const store = await SqlObjectStore.open(database, { exclusiveWriter: true, watchCacheCapacity });
    const registry = new Registry(groups, store);
    await registry.bootstrap();
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
      admission: admissionChain(groups.flatMap((group) => (group.admission ? [group.admission(objectLookup(() => registry, group.name))] : []))),
      ...options,
      watchBookmarkIntervalMs: options.watchBookmarkIntervalMs ?? 60_000,
    });
    const server: Server = createServer(koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint: ServerEndpoint = { url: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
    // Connections kept alive, as a client's are: a connection per request costs more than many requests do.
    const agent = new Agent({ keepAlive: true });
    app = { ...endpoint, registry, database, store, request: (method, path, options = {}) => requestServer(endpoint, method, path, { agent, ...options }) };
    close = async () => {
      shutdown.abort();
      agent.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await store.close();
      await database.close();
      await rm(dataDir, { recursive: true, force: true });
    };
  });
  afterAll(async () => close?.());
  return () => {
    if (!app) throw new Error('the in-process app did not start');
    return app;
  };
}
