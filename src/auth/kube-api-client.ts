/**
 * A minimal HTTPS client for the main kube-apiserver, from a kubeconfig, as
 * k8s.io/apiserver's delegating options build one from `--authentication-kubeconfig`
 * and `--authorization-kubeconfig`: the current context's cluster (server, CA, TLS
 * server name) and user (client certificate or bearer token). It posts reviews, reads
 * objects and watches them; nothing more. (src/client/ is Cairn's own typed client, a
 * layer the server's auth may not import.)
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';

/** A response of the main API server, its body parsed as JSON (undefined when it is not). */
export interface KubeApiResponse {
  readonly status: number;
  readonly body: unknown;
}

/** One event of a watch, as the wire carries it. */
export interface KubeWatchEvent {
  readonly type: string;
  readonly object: unknown;
}

/** Options of one request. */
export interface KubeRequestOptions {
  /** Abandon the request after this many ms (an error); none by default. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** What the kubeconfig says about the server and the credentials. */
interface Connection {
  readonly server: string;
  readonly tls: { readonly ca?: string; readonly cert?: string; readonly key?: string; readonly rejectUnauthorized: boolean; readonly servername?: string };
  readonly token?: string;
  /** A token file (`tokenFile`), re-read as it rotates (a projected ServiceAccount token). */
  readonly tokenFile?: string;
}

/** Where a pod's ServiceAccount token (`token`) and the cluster's CA (`ca.crt`) are mounted. */
export const serviceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

/** How long a token read from a file is used before the file is read again, as client-go's cached token source. */
const tokenFileRefreshMs = 60_000;

type Entry = Record<string, unknown>;

function named(list: unknown, name: unknown, what: string, key: string): Entry {
  const found = (Array.isArray(list) ? (list as Entry[]) : []).find((item) => item?.name === name)?.[key];
  if (typeof found !== 'object' || found === null) throw new Error(`kubeconfig: no ${what} "${String(name)}"`);
  return found as Entry;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** An inline `*-data` field (base64) or the file its sibling names, relative to the kubeconfig. */
function material(entry: Entry, dataKey: string, fileKey: string, base: string): string | undefined {
  const data = text(entry[dataKey]);
  if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
  const file = text(entry[fileKey]);
  return file === undefined ? undefined : readFileSync(resolve(base, file), 'utf8');
}

/** Reads the current context of a kubeconfig document. */
function connectionOf(document: unknown, base: string): Connection {
  const config = (document ?? {}) as Entry;
  const context = named(config.contexts, config['current-context'], 'context', 'context');
  const cluster = named(config.clusters, context.cluster, 'cluster', 'cluster');
  const user = context.user === undefined ? {} : named(config.users, context.user, 'user', 'user');
  const server = text(cluster.server);
  if (server === undefined) throw new Error('kubeconfig: the cluster has no server');
  const tokenFile = text(user.tokenFile);
  return {
    server: server.replace(/\/+$/, ''),
    tls: {
      ca: material(cluster, 'certificate-authority-data', 'certificate-authority', base),
      rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true,
      servername: text(cluster['tls-server-name']),
      cert: material(user, 'client-certificate-data', 'client-certificate', base),
      key: material(user, 'client-key-data', 'client-key', base),
    },
    token: text(user.token),
    tokenFile: tokenFile === undefined ? undefined : resolve(base, tokenFile),
  };
}

/**
 * Talks to the main API server as a kubeconfig says.
 *
 * @example
 * const client = await KubeApiClient.fromKubeconfig('/etc/cairn/kubeconfig');
 * const { status, body } = await client.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', review);
 */
export class KubeApiClient {
  readonly #connection: Connection;
  readonly #agent: Agent;
  #fileToken: { readonly token: string; readonly read: number } | undefined;

  private constructor(connection: Connection) {
    this.#connection = connection;
    this.#agent = new Agent({ keepAlive: true, ...connection.tls });
    this.#token();
  }

  /** The bearer token to send, if any: an inline token wins; a token file is read again once a minute. */
  #token(): string | undefined {
    const { token, tokenFile } = this.#connection;
    if (token !== undefined || tokenFile === undefined) return token;
    if (this.#fileToken === undefined || Date.now() - this.#fileToken.read > tokenFileRefreshMs) {
      try {
        this.#fileToken = { token: readFileSync(tokenFile, 'utf8').trim(), read: Date.now() };
      } catch (error) {
        // Keep the last token when the file is briefly missing during a rotation; fail only when there is none.
        if (this.#fileToken === undefined) throw error;
      }
    }
    return this.#fileToken.token;
  }

  /** Reads a kubeconfig file; relative certificate paths are relative to it. */
  static async fromKubeconfig(path: string): Promise<KubeApiClient> {
    return new KubeApiClient(connectionOf(parse(await readFile(path, 'utf8')), dirname(resolve(path))));
  }

  /**
   * The in-cluster config, as client-go's `rest.InClusterConfig`: `https://host:port` of the
   * main API server's Service, the ServiceAccount token of `dir` (read again as it rotates;
   * throws when it cannot be read) and its `ca.crt` (the system's CAs when that is missing,
   * as client-go goes on without it).
   *
   * @example
   * const client = KubeApiClient.inCluster({ host: env.KUBERNETES_SERVICE_HOST, port: env.KUBERNETES_SERVICE_PORT });
   */
  static inCluster(service: { readonly host: string; readonly port: string }, dir: string = serviceAccountDir): KubeApiClient {
    let ca: string | undefined;
    try {
      ca = readFileSync(join(dir, 'ca.crt'), 'utf8');
    } catch {
      ca = undefined;
    }
    // net.JoinHostPort: an IPv6 address in brackets.
    const host = service.host.includes(':') ? `[${service.host}]` : service.host;
    return new KubeApiClient({ server: `https://${host}:${service.port}`, tls: { ca, rejectUnauthorized: true }, tokenFile: join(dir, 'token') });
  }

  /** The server's URL, for messages. */
  get server(): string {
    return this.#connection.server;
  }

  #open(method: string, path: string, body: string | undefined, options: KubeRequestOptions, onResponse: (res: IncomingMessage) => void) {
    const headers: Record<string, string> = { Accept: 'application/json' };
    const token = this.#token();
    if (token !== undefined) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
    const req = httpsRequest(`${this.#connection.server}${path}`, { method, headers, agent: this.#agent, signal: options.signal }, onResponse);
    if (options.timeoutMs !== undefined)
      req.setTimeout(options.timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer within ${options.timeoutMs} ms`)));
    req.end(body);
    return req;
  }

  /** One request; rejects when the connection fails or times out, resolves with any HTTP status. */
  request(method: string, path: string, body?: unknown, options: KubeRequestOptions = {}): Promise<KubeApiResponse> {
    return new Promise((resolvePromise, reject) => {
      const req = this.#open(method, path, body === undefined ? undefined : JSON.stringify(body), options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('error', reject);
        res.once('end', () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            parsed = undefined;
          }
          resolvePromise({ status: res.statusCode ?? 0, body: parsed });
        });
      });
      req.once('error', reject);
    });
  }

  /**
   * Watches `path` (a list path with `watch=1` in its query), calling `onEvent` for each
   * event; resolves when the server ends the stream or `signal` aborts, rejects on a
   * failed connection or a non-200 answer.
   */
  watch(path: string, onEvent: (event: KubeWatchEvent) => void, signal: AbortSignal): Promise<void> {
    return new Promise((resolvePromise, reject) => {
      const req = this.#open('GET', path, undefined, { signal }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`watch ${path}: HTTP ${res.statusCode}`));
          return;
        }
        let pending = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          pending += chunk;
          try {
            for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n')) {
              const line = pending.slice(0, end).trim();
              pending = pending.slice(end + 1);
              if (line !== '') onEvent(JSON.parse(line) as KubeWatchEvent);
            }
          } catch (error) {
            // A line that does not parse, or an event the caller refuses, ends the watch.
            reject(error instanceof Error ? error : new Error(String(error)));
            req.destroy();
          }
        });
        res.once('end', () => resolvePromise());
        res.once('close', () => resolvePromise());
        res.once('error', (error) => (signal.aborted ? resolvePromise() : reject(error)));
      });
      req.once('error', (error) => (signal.aborted ? resolvePromise() : reject(error)));
    });
  }

  /** Closes idle connections. */
  close(): void {
    this.#agent.destroy();
  }
}
