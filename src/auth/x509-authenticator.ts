/**
 * Client-certificate authentication: a certificate that verified against the
 * client CA names the user (CN) and groups (O), as kube-apiserver's x509
 * authenticator does. The TLS server verifies the chain; this reads the outcome.
 */
import type { TLSSocket } from 'node:tls';
import type { AuthenticationRequest, Authenticator, UserInfo } from './user-info.js';

/** Authenticates requests that present a certificate from the client CA. */
export class X509Authenticator implements Authenticator {
  // A connection carries one certificate: parse it once, not on every request (HTTP/2 multiplexes many).
  readonly #users = new WeakMap<object, UserInfo | undefined>();

  authenticate(request: AuthenticationRequest): UserInfo | undefined {
    const socket = request.socket as Partial<TLSSocket> | undefined;
    if (!socket?.authorized || typeof socket.getPeerCertificate !== 'function') return undefined;
    // HTTP/2 requests of one session share one socket proxy, so it keys the cache too.
    if (this.#users.has(socket)) return this.#users.get(socket);
    const user = this.#userOf(socket as TLSSocket);
    this.#users.set(socket, user);
    return user;
  }

  #userOf(socket: TLSSocket): UserInfo | undefined {
    const certificate = socket.getPeerCertificate();
    const cn = certificate?.subject?.CN;
    if (!cn) return undefined;
    const name = Array.isArray(cn) ? cn[0]! : cn;
    const o = certificate.subject.O;
    const groups = o === undefined ? [] : Array.isArray(o) ? o : [o];
    return { name, groups: [...groups, 'system:authenticated'] };
  }
}
