/**
 * The TLS listener: HTTP/2 and HTTP/1.1 on one port (ALPN), client certificates
 * requested (not required), and connection tracking for graceful shutdown.
 */
import http2 from 'node:http2';
import type { Socket } from 'node:net';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { SecureContextOptions, SecureVersion, TLSSocket } from 'node:tls';

/** TLS material of the listener. */
export interface ServingTls {
  readonly certPem: string;
  readonly keyPem: string;
  /**
   * Every CA whose client certificates some authenticator accepts. The handshake only
   * asks for and checks certificates; each authenticator then verifies against its own CAs.
   */
  readonly clientCaPems: readonly string[];
  /** The oldest protocol served (`--tls-min-version`); Node's default when undefined. */
  readonly minVersion?: SecureVersion;
  /** The OpenSSL cipher list for TLS 1.2 (`--tls-cipher-suites`); Node's defaults when undefined. */
  readonly ciphers?: string;
}

/** A listening server. */
export interface Listener {
  readonly port: number;
  /** Asks new connections for certificates of these CAs instead (the cluster's trust changed). */
  setClientCas(clientCaPems: readonly string[]): void;
  /** Serves new connections with this certificate and key instead (the files changed); connections open keep theirs. */
  setServingCertificate(certPem: string, keyPem: string): void;
  /** Stops accepting, lets requests in flight finish for `graceMs`, then cuts what is left. */
  close(graceMs: number): Promise<void>;
}

/** kube-apiserver allows many streams per connection; the aggregator multiplexes watches on one. */
const maxConcurrentStreams = 2000;

/**
 * Starts listening on `host:port` (port 0 picks one). Once `draining` is aborted (shutdown
 * began), every HTTP/1.1 response says `Connection: close` and every HTTP/2 session gets a
 * graceful GOAWAY, so clients take their next request elsewhere rather than to a connection
 * that is about to close, while the requests and watches they have open here go on.
 */
export async function listen(handler: RequestListener, tls: ServingTls, host: string, port: number, draining?: AbortSignal): Promise<Listener> {
  // One state for every part of the secure context: replacing it for one part (a CA, the certificate) keeps the others.
  let current = tls;
  const secureContext = (): SecureContextOptions => ({
    cert: current.certPem,
    key: current.keyPem,
    ca: [...current.clientCaPems],
    ...(current.minVersion ? { minVersion: current.minVersion } : {}),
    ...(current.ciphers ? { ciphers: current.ciphers } : {}),
  });
  const update = (change: Partial<ServingTls>): void => {
    current = { ...current, ...change };
    server.setSecureContext(secureContext());
  };
  const server = http2.createSecureServer(
    {
      ...secureContext(),
      requestCert: true,
      rejectUnauthorized: false,
      allowHTTP1: true,
      // Small writes (a watch event, a short answer) go out at once, as Go's TCP_NODELAY default sends
      // them: with Nagle's algorithm a watch event waits for the client's delayed ACK, up to 40 ms.
      noDelay: true,
      settings: { maxConcurrentStreams },
      // Node cuts a connection after a burst of stream resets (an attack guard); a client
      // cancelling its watches on a shared aggregator connection must stay under it.
      streamResetBurst: 2 * maxConcurrentStreams,
      streamResetRate: maxConcurrentStreams,
    },
    ((req: IncomingMessage, res: ServerResponse) => {
      if (req.httpVersionMajor === 1) http1Requests.track(req, res, draining?.aborted === true);
      // A session opened since the drain began: this request is served, the next go elsewhere, as HTTP/1.1's `Connection: close`.
      else if (draining?.aborted) (req as unknown as http2.Http2ServerRequest).stream.session?.close();
      handler(req, res);
    }) as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
  );
  const http1Requests = new Http1Requests();
  const sockets = new Set<Socket>();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  // As Go's HTTP/2 server at Shutdown: GOAWAY with no error and the last stream taken (what
  // session.close() sends), then the connection closes once its streams are done. The
  // listener still takes connections meanwhile, as kube-apiserver's does through the delay.
  draining?.addEventListener('abort', () => sessions.forEach((session) => session.close()), { once: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    setClientCas: (clientCaPems) => update({ clientCaPems }),
    setServingCertificate: (certPem, keyPem) => update({ certPem, keyPem }),
    async close(graceMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close();
      const timer = setTimeout(() => {
        for (const session of sessions) session.destroy();
        for (const socket of sockets) socket.destroy();
      }, graceMs);
      timer.unref();
      // HTTP/1.1 connections would hold close() open; HTTP/2 ones end through session.close().
      // An idle one closes now, one with a request in flight once its response is sent.
      http1Requests.closing = true;
      for (const socket of sockets) if ((socket as TLSSocket).alpnProtocol !== 'h2' && !http1Requests.busy(socket)) socket.end();
      await closed;
      clearTimeout(timer);
    },
  };
}

/**
 * The HTTP/1.1 requests in flight per connection: at shutdown a connection closes once it
 * is idle, never under a response still being written (which its client would lose).
 */
class Http1Requests {
  readonly #inFlight = new Map<Socket, number>();
  /** Set when the listener closes: a connection ends as its last response does. */
  closing = false;

  /** Counts `req` on its connection until its response is done; `draining` answers it with `Connection: close`. */
  track(req: IncomingMessage, res: ServerResponse, draining: boolean): void {
    const socket = req.socket;
    if (draining || this.closing) res.setHeader('Connection', 'close');
    this.#inFlight.set(socket, (this.#inFlight.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (this.#inFlight.get(socket) ?? 1) - 1;
      if (left > 0) this.#inFlight.set(socket, left);
      else {
        this.#inFlight.delete(socket);
        if (this.closing) socket.end();
      }
    });
  }

  busy(socket: Socket): boolean {
    return this.#inFlight.has(socket);
  }
}
