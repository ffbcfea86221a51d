/**
 * Many watch connections, each its own HTTP/1.1 TLS connection as the admin user,
 * that note when each created object's ADDED event arrives — without parsing the
 * events, so that 1,000 watchers cost the bench little.
 */
import https from 'node:https';
import type { ClientRequest } from 'node:http';
import { pipelinesPath } from './pipeline-manifest.js';
import { tlsOptions, type ServerAccess } from './server-access.js';

/** Called with an object's name and the time (performance.now()) its ADDED event arrived. */
export type OnAdded = (name: string, at: number) => void;

/** Opens this many connections at a time: a burst of 1,000 handshakes would only queue. */
const openConcurrency = 50;
const openTimeoutMs = 60_000;

/** Open watches on one namespace. */
export interface Watchers {
  readonly count: number;
  /** Ends every watch (the connections are destroyed). */
  close(): void;
}

/**
 * Opens `count` watches of the Pipelines in `namespace` and resolves once every one
 * has its 200; each event of an object whose name starts with `prefix` is reported
 * (the bench only creates in a watched namespace: every such event is an ADDED).
 */
export function openWatchers(access: ServerAccess, namespace: string, count: number, prefix: string, onAdded: OnAdded): Promise<Watchers> {
  return openNamespaceWatchers(access, Array<string>(count).fill(namespace), prefix, (_watcher, name, at) => onAdded(name, at));
}

/**
 * Opens one watch per entry of `namespaces` (watcher `k` watches `namespaces[k]`), from
 * `resourceVersion` when given (no initial state: a seeded namespace's 10,000 ADDED
 * events would be read and dropped), and resolves once every one has its 200; each
 * event of an object whose name starts with `prefix` is reported with its watcher.
 */
export async function openNamespaceWatchers(
  access: ServerAccess,
  namespaces: readonly string[],
  prefix: string,
  onEvent: (watcher: number, name: string, at: number) => void,
  resourceVersion?: string,
): Promise<Watchers> {
  const requests: ClientRequest[] = [];
  const close = (): void => requests.forEach((r) => r.destroy());
  const marker = Buffer.from(`"name":"${prefix}`);
  const query = `?watch=true${resourceVersion === undefined ? '' : `&resourceVersion=${resourceVersion}`}`;
  try {
    for (let next = 0; next < namespaces.length;) {
      const batch = Math.min(openConcurrency, namespaces.length - next);
      await Promise.all(
        Array.from({ length: batch }, (_, j) => {
          const watcher = next + j;
          const onAdded: OnAdded = (name, at) => onEvent(watcher, name, at);
          return openWatch(access, `${pipelinesPath(namespaces[watcher])}${query}`, marker, onAdded, requests);
        }),
      );
      next += batch;
    }
  } catch (error) {
    close();
    throw error;
  }
  return { count: namespaces.length, close };
}

/** Opens one watch; resolves on its 200. */
function openWatch(access: ServerAccess, path: string, marker: Buffer, onAdded: OnAdded, requests: ClientRequest[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${access.url}${path}`, { ...tlsOptions(access), agent: false, headers: { Accept: 'application/json' } }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`watch ${path}: HTTP ${String(res.statusCode)}`));
        res.resume();
        return;
      }
      req.setTimeout(0);
      const scan = nameScanner(marker);
      res.on('data', (chunk: Buffer) => scan(chunk, performance.now(), onAdded));
      res.on('error', () => undefined);
      resolve();
    });
    requests.push(req);
    req.setTimeout(openTimeoutMs, () => req.destroy(new Error(`watch ${path}: no answer in ${openTimeoutMs / 1000} s`)));
    req.on('error', (error) => reject(error));
    req.end();
  });
}

/** `"name":"` — the name starts right after it. */
const nameKey = Buffer.byteLength('"name":"');
const quote = 0x22;

/**
 * Finds `"name":"PREFIX…"` in a stream's chunks with Buffer.indexOf, carrying a chunk's
 * tail over to the next so that a name split between two chunks is still found once.
 */
function nameScanner(marker: Buffer): (chunk: Buffer, at: number, onAdded: OnAdded) => void {
  let carried: Buffer | undefined;
  return (chunk, at, onAdded) => {
    const data = carried ? Buffer.concat([carried, chunk]) : chunk;
    let from = 0;
    let unfinished: number | undefined;
    for (let i = data.indexOf(marker); i >= 0; i = data.indexOf(marker, from)) {
      const end = data.indexOf(quote, i + marker.length);
      if (end < 0) {
        unfinished = i;
        break;
      }
      onAdded(data.toString('latin1', i + nameKey, end), at);
      from = end + 1;
    }
    // Keep a name cut by the chunk's end, or what could be the start of a marker.
    const keep = unfinished ?? Math.max(from, data.length - marker.length + 1);
    carried = keep < data.length ? Buffer.from(data.subarray(keep)) : undefined;
  };
}
