/**
 * A minimal client of a Kubernetes API server for the server's own needs, as
 * k8s.io/apiserver's delegating options build one from `--authentication-kubeconfig` and
 * `--authorization-kubeconfig` (or the in-cluster config): it posts reviews, reads
 * objects and watches them, untyped, over the one transport and kubeconfig reader.
 * `restListWatch` turns two of its paths into a `ListWatch` for an Informer.
 */
import { httpsFetch, type HttpsFetch } from './https-fetch.js';
import { inClusterAccess, loadKubeconfig, serviceAccountDir, type ClusterAccess } from './kubeconfig.js';
import { apiError, type Status } from './api-error.js';
import type { Bookmark, ListWatch, WatchEvent } from './list-watch.js';
import { watchEvents, type RawWatchEvent } from './watch-events.js';

/** A response of the API server, its body parsed as JSON (undefined when it is not). */
export interface RestResponse {
  readonly status: number;
  readonly body: unknown;
}

/** Options of one request. */
export interface RestRequestOptions {
  /** Abandon the request after this many ms (an error); none by default. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Headers besides Accept and Content-Type (a span's `traceparent`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Talks to an API server as a kubeconfig (or the in-cluster config) says.
 *
 * @example
 * const client = await RestClient.fromKubeconfig('/etc/cairn/kubeconfig');
 * const { status, body } = await client.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', review);
 */
export class RestClient {
  readonly #server: string;
  readonly #fetch: HttpsFetch;

  constructor(access: ClusterAccess) {
    this.#server = access.server;
    this.#fetch = httpsFetch(access);
  }

  /** Reads a kubeconfig file's current context; relative certificate paths are relative to it. */
  static async fromKubeconfig(path: string): Promise<RestClient> {
    return new RestClient(await loadKubeconfig(path));
  }

  /**
   * The in-cluster client (see `inClusterAccess`); throws when the ServiceAccount token
   * cannot be read.
   */
  static inCluster(service: { readonly host: string; readonly port: string }, dir: string = serviceAccountDir): RestClient {
    return new RestClient(inClusterAccess(service, dir));
  }

  /** The server's URL, for messages. */
  get server(): string {
    return this.#server;
  }

  /** One request; rejects when the connection fails or times out, resolves with any HTTP status. */
  async request(method: string, path: string, body?: unknown, options: RestRequestOptions = {}): Promise<RestResponse> {
    const timeout = new AbortController();
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => timeout.abort(new Error(`${method} ${path}: no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
    try {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const headers = { ...options.headers, Accept: 'application/json', ...(text !== undefined ? { 'Content-Type': 'application/json' } : {}) };
      const response = await this.#fetch(new Request(`${this.#server}${path}`, { method, headers, body: text, signal }));
      const answer = await response.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(answer);
      } catch {
        parsed = undefined;
      }
      return { status: response.status, body: parsed };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The events of one watch stream of `path` (a list path with `watch=1` in its query),
   * until the server ends it or `signal` aborts; throws on a failed connection, a line
   * that does not parse or a non-200 answer.
   */
  async *watch(path: string, signal: AbortSignal): AsyncGenerator<RawWatchEvent> {
    let response: Response;
    try {
      response = await this.#fetch(new Request(`${this.#server}${path}`, { headers: { Accept: 'application/json' }, signal }));
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel();
      throw new Error(`watch ${path}: HTTP ${response.status}`);
    }
    try {
      yield* watchEvents(response.body, signal);
    } catch (error) {
      if (!signal.aborted) throw error;
    }
  }

  /** Closes idle connections. */
  close(): void {
    this.#fetch.close();
  }
}

/** What `restListWatch` reads and watches, and how it names them in errors. */
export interface RestListWatchOptions<T> {
  /** The path to GET for the list (a collection, or one object). */
  readonly listPath: string;
  /** The objects the GET answered with, and the resourceVersion to watch from. */
  readonly itemsOf: (body: unknown) => { readonly items: readonly T[]; readonly resourceVersion: string };
  /** The watch's path and query for a resourceVersion (`''`: none). */
  readonly watchPath: (resourceVersion: string) => string;
  /** What is watched, for the error of an ERROR event, e.g. `the authentication ConfigMap`. */
  readonly what: string;
}

/** How long the list's GET may take. */
const listTimeoutMs = 10_000;

/**
 * A ListWatch through `client`: the list a GET of `listPath`, each watch one stream (the
 * reflector watches again from the last resourceVersion when the server ends it, at the
 * watch's `timeoutSeconds`). An ERROR event fails the watch, with a ResourceExpiredError
 * when its Status is 410 Gone (the reflector then lists again, silently); bookmarks are
 * passed on, and other events left out.
 *
 * @example
 * const informer = new Informer(restListWatch(client, { listPath, itemsOf, watchPath: (rv) => `${listPath}?watch=1&resourceVersion=${rv}`, what: 'webhooks' }));
 */
export function restListWatch<T>(client: Pick<RestClient, 'request' | 'watch'>, options: RestListWatchOptions<T>): ListWatch<T> {
  return {
    async list(signal) {
      const answer = await client.request('GET', options.listPath, undefined, { timeoutMs: listTimeoutMs, signal });
      if (answer.status !== 200) throw new Error(`GET ${options.listPath}: HTTP ${answer.status}`);
      return options.itemsOf(answer.body);
    },
    async *watch(resourceVersion, signal) {
      for await (const event of client.watch(options.watchPath(resourceVersion), signal)) {
        if (event.type === 'ERROR') {
          if ((event.object as Status | undefined)?.code === 410) throw apiError(410, event.object);
          throw new Error(`watch of ${options.what}: ${JSON.stringify(event.object)}`);
        }
        if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED' || event.type === 'BOOKMARK')
          yield event as WatchEvent<T> | Bookmark;
      }
    },
  };
}
