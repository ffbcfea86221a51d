/**
 * The HTTPS transport of every client of an API server: a `fetch` over `node:https` that
 * presents the kubeconfig's client certificate or bearer token and trusts its CA (or,
 * when told, any certificate). Node's global fetch cannot take TLS options (that needs
 * undici's dispatcher, which is not a dependency), so openapi-fetch and the RestClient
 * are given this one. The response body streams, so watches and `log?follow=true` read
 * as they arrive. An aborted request rejects with its signal's reason, as fetch does.
 */
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { bearerToken } from './bearer-token.js';
import type { ClusterAccess } from './kubeconfig.js';

/** A fetch bound to one server's TLS material, and the connections it keeps alive. */
export interface HttpsFetch {
  (request: Request): Promise<Response>;
  /** Closes the kept-alive connections. */
  close(): void;
}

/** Statuses whose responses have no body (the Response constructor rejects one). */
const bodiless = new Set([204, 205, 304]);

/** Builds the fetch for `access`. */
export function httpsFetch(
  access: Pick<ClusterAccess, 'caPem' | 'tlsServerName' | 'insecureSkipTlsVerify' | 'clientCertPem' | 'clientKeyPem' | 'token' | 'tokenFile'>,
): HttpsFetch {
  const agent = new https.Agent({
    keepAlive: true,
    ca: access.caPem,
    servername: access.tlsServerName,
    rejectUnauthorized: access.insecureSkipTlsVerify !== true,
    cert: access.clientCertPem,
    key: access.clientKeyPem,
  });
  const token = bearerToken(access);
  const fetch = async (request: Request): Promise<Response> => {
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const bearer = token();
      // A length, always: node sends a DELETE's body unframed otherwise, and the server reads it as a malformed next request.
      const headers = {
        ...Object.fromEntries(request.headers),
        ...(bearer !== undefined ? { authorization: `Bearer ${bearer}` } : {}),
        ...(body ? { 'content-length': String(body.length) } : {}),
      };
      const { signal } = request;
      const req = https.request(request.url, { method: request.method, headers, agent, signal }, resolve);
      req.on('error', (error) => reject(signal.aborted ? (signal.reason as Error) : error));
      req.end(body);
    });
    const status = res.statusCode ?? 0;
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      for (const v of Array.isArray(value) ? value : [value ?? '']) headers.append(name, v);
    }
    if (!bodiless.has(status)) return new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, { status, statusText: res.statusMessage, headers });
    res.resume();
    return new Response(null, { status, statusText: res.statusMessage, headers });
  };
  return Object.assign(fetch, { close: () => agent.destroy() });
}
