/**
 * Starts a real Cairn server (TLS, real database) for a test, and talks to it with
 * the admin client certificate.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { parseConfig } from '../../src/server/config.js';
import { startServer, type RunningServer, type ServerSeams } from '../../src/server/server.js';
import { seedPgliteDataDir } from './pglite-template.js';
import { testDatabaseUrl } from './test-database.js';

/** Which database a test server stores in. */
export type Backend = 'pglite' | 'postgres';

/** The backends the storage tests run against: only where storage is the subject does a test run per backend. */
export const backends: readonly Backend[] = ['pglite', 'postgres'];

/** A test server and how to reach it. */
export interface TestServer extends RunningServer {
  readonly dataDir: string;
  readonly databaseUrl?: string;
  /** Makes a request as the admin user. */
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  /** Stops the server and removes its data directory, given or fresh: a restart test's last server removes what its first made. */
  destroy(): Promise<void>;
}

/** Options of one request. */
export interface RequestOptions {
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Another client certificate, or null for none. */
  readonly clientCert?: { certPem: string; keyPem: string } | null;
  /** A keep-alive agent to reuse connections (an https.Agent for a real server); a fresh connection per request otherwise. */
  readonly agent?: http.Agent;
}

/** What a request needs of a server: its URL and, over HTTPS, its TLS material (the in-process app serves plain HTTP). */
export type ServerEndpoint = Pick<RunningServer, 'url'> & { readonly pki?: Pick<RunningServer['pki'], 'servingCaPem' | 'adminCertPem' | 'adminKeyPem'> };

/**
 * Starts a request to `server` as the admin user: over HTTPS with the serving CA and the
 * admin's client certificate (`options` may replace them), over plain HTTP to the in-process app.
 */
export function requestTo(
  server: ServerEndpoint,
  path: string,
  options: https.RequestOptions,
  onResponse: (res: http.IncomingMessage) => void,
): http.ClientRequest {
  const url = `${server.url}${path}`;
  if (!server.pki) return http.request(url, options, onResponse);
  return https.request(url, { ca: server.pki.servingCaPem, cert: server.pki.adminCertPem, key: server.pki.adminKeyPem, ...options }, onResponse);
}

/** A response, its body read in full. */
export interface TestResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  readonly json: any;
}

/** Options of a test server. */
export interface TestServerOptions {
  readonly backend: Backend;
  /** Reuse a data directory (restart tests); a fresh one otherwise. */
  readonly dataDir?: string;
  /** Reuse a database (restart tests); a fresh one otherwise. */
  readonly databaseUrl?: string;
  readonly args?: readonly string[];
  /** The environment Cairn's configuration reads (e.g. `KUBERNETES_SERVICE_HOST`); empty by default. */
  readonly env?: NodeJS.ProcessEnv;
  /** What the server is given beside its configuration. */
  readonly seams?: ServerSeams;
  /** Run the in-process sample controller, as `npm start` does; off by default, so tests see only their own writes. */
  readonly controller?: boolean;
  /** Run the garbage collector (`--garbage-collector`'s auto), as `npm start` does; off by default, so deletions stay as the registry leaves them. */
  readonly garbageCollector?: boolean;
}

/** Starts a server on a free port and waits until it is ready; a fresh data directory is removed again if it does not start. */
export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'cairn-test-')));
  try {
    return await startOn(dataDir, options);
  } catch (error) {
    if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

async function startOn(dataDir: string, options: TestServerOptions): Promise<TestServer> {
  const databaseUrl = options.backend === 'postgres' ? (options.databaseUrl ?? (await testDatabaseUrl())) : undefined;
  if (options.backend === 'pglite' && options.dataDir === undefined) await seedPgliteDataDir(dataDir);
  const args = [
    '--port',
    '0',
    '--data-dir',
    dataDir,
    ...(databaseUrl ? ['--database-url', databaseUrl] : []),
    ...(options.controller ? [] : ['--no-controller']),
    ...(options.garbageCollector ? [] : ['--garbage-collector=off']),
    ...(options.args ?? []),
  ];
  const server = await startServer(parseConfig(args, options.env ?? {}), pino({ level: process.env.CAIRN_TEST_LOG ?? 'silent' }), options.seams);
  await server.ready.catch(async (error: unknown) => {
    await server.close();
    throw error;
  });
  const request = (method: string, path: string, ro: RequestOptions = {}) => requestServer(server, method, path, ro);
  return Object.assign(Object.create(null) as object, server, {
    dataDir,
    databaseUrl,
    request,
    close: () => server.close(),
    async destroy() {
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  });
}

/** Makes one request to a running server (HTTPS) or the in-process app (HTTP). */
export function requestServer(server: ServerEndpoint, method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> {
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const headers: Record<string, string> = {
    ...(body !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } : {}),
    ...options.headers,
  };
  const certificate = options.clientCert === undefined ? {} : { cert: options.clientCert?.certPem, key: options.clientCert?.keyPem };
  return new Promise((resolve, reject) => {
    const req = requestTo(server, path, { method, headers, ...certificate, agent: options.agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** A minimal valid Pipeline manifest. */
export function pipeline(name: string, spec: Record<string, unknown> = {}, labels?: Record<string, string>) {
  return {
    apiVersion: 'cairn.dev/v1',
    kind: 'Pipeline',
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: { runnerClassName: 'standard', steps: [{ name: 'fetch', image: 'alpine:3.20', command: ['sh', '-c', 'echo hi'] }], ...spec },
  };
}

/** A RunnerClass manifest: a Pipeline may only name a RunnerClass that exists (the server seeds `standard`). */
export function runnerClass(name: string, spec: Record<string, unknown> = {}) {
  return { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name }, spec };
}

/**
 * Starts one server for the enclosing `describe` block and stops it after. The
 * accessor fails the calling test when the server could not start.
 */
export function sharedTestServer(options: TestServerOptions): () => TestServer {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(options);
  });
  afterAll(async () => {
    await server?.destroy();
  });
  return () => {
    if (server === undefined) throw new Error('the test server did not start');
    return server;
  };
}
