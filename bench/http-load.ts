/**
 * Closed-loop HTTP/1.1 load with autocannon over TLS with the admin client certificate:
 * a fixed number of connections, each sending its next request when the last answered,
 * for a fixed time.
 */
import autocannon from 'autocannon';
import type { ServerAccess } from './server-access.js';

/** One request of a load; `next` builds each request anew (a unique name, a new revision). */
export interface LoadRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  readonly path: string;
  readonly contentType?: string;
  /** The next request's path and body; the fixed `path` and no body when undefined. */
  readonly next?: () => { path?: string; body?: string };
}

/** What one load measured. */
export interface Throughput {
  /** 2xx answers per second. */
  readonly perSecond: number;
  readonly ok: number;
  /** Answers other than 2xx, and connection errors and timeouts. */
  readonly failed: number;
}

/** Runs `connections` clients against `access` for `seconds`; stops by itself. */
export async function measureThroughput(access: ServerAccess, connections: number, seconds: number, load: LoadRequest): Promise<Throughput> {
  const headers = { accept: 'application/json', ...(load.contentType ? { 'content-type': load.contentType } : {}) };
  const result = await autocannon({
    url: `${access.url}${load.path}`,
    connections,
    duration: seconds,
    timeout: 30,
    tlsOptions: { ca: access.caPem, cert: access.certPem, key: access.keyPem },
    requests: [
      {
        method: load.method,
        path: load.path,
        headers,
        ...(load.next ? { setupRequest: (req) => ({ ...req, ...load.next!() }) } : {}),
      },
    ],
  });
  const ok = result['2xx'];
  return { perSecond: ok / result.duration, ok, failed: result.non2xx + result.errors };
}
