/**
 * A plain-HTTP front for a test server that answers `/openapi/v3…` with 404, as a
 * server without OpenAPI v3 does, and records every request. Pointed at it, kubectl
 * 1.27 and 1.28 can only learn the API from the protobuf `/openapi/v2`.
 */
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { stringify } from 'yaml';
import { requestTo, type ServerEndpoint } from './test-server.js';

/** One request the front received. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query. */
  readonly url: string;
  readonly accept: string;
}

/** A running front. */
export interface LegacyOpenApiProxy {
  readonly requests: RecordedRequest[];
  /** Writes a kubeconfig that reaches the server through the front; the front presents the admin certificate. */
  writeKubeconfig(path: string): Promise<void>;
  close(): Promise<void>;
}

const notFound = JSON.stringify({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server could not find the requested resource',
  reason: 'NotFound',
  code: 404,
});

/** Starts a front for `server` on a free loopback port. */
export async function startLegacyOpenApiProxy(server: ServerEndpoint): Promise<LegacyOpenApiProxy> {
  const requests: RecordedRequest[] = [];
  const front = http.createServer((req, res) => {
    const url = req.url ?? '/';
    requests.push({ method: req.method ?? 'GET', url, accept: req.headers.accept ?? '' });
    if (url.startsWith('/openapi/v3')) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(notFound);
      return;
    }
    const upstream = requestTo(server, url, { method: req.method, headers: req.headers, agent: false }, (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
      upstreamRes.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const { port } = front.address() as AddressInfo;
  return {
    requests,
    async writeKubeconfig(path) {
      const kubeconfig = {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'legacy', cluster: { server: `http://127.0.0.1:${port}` } }],
        users: [{ name: 'anonymous', user: {} }],
        contexts: [{ name: 'legacy', context: { cluster: 'legacy', user: 'anonymous', namespace: 'default' } }],
        'current-context': 'legacy',
      };
      await writeFile(path, stringify(kubeconfig));
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        front.closeAllConnections();
        front.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
