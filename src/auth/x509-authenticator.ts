/**
 * Client-certificate authentication: a certificate that chains to this
 * authenticator's own CA pool names the user (CN) and groups (O), as kube-apiserver's
 * x509 authenticator does. The listener asks for certificates from every CA any
 * authenticator trusts; this one accepts only those its own pool verifies.
 */
import type { DetailedPeerCertificate } from 'node:tls';
import { CertificateVerifier } from './certificate-verifier.js';
import { isTlsSocket, peerCertificateChain } from './peer-certificates.js';
import { allAuthenticated, type AuthenticationRequest, type Authenticator, type UserInfo } from './user-info.js';

/** What the authenticator trusts. */
export interface X509AuthenticatorOptions {
  /** The client CA bundle(s) whose certificates name users (kube's `--client-ca-file`). */
  readonly clientCaPems: readonly string[];
}

/** The user a certificate names: CN is the name, each O a group. */
function userOf(peer: DetailedPeerCertificate): UserInfo | undefined {
  const cn = peer.subject?.CN;
  if (!cn) return undefined;
  const name = Array.isArray(cn) ? cn[0] : cn;
  const o = peer.subject.O;
  const groups = o === undefined ? [] : Array.isArray(o) ? o : [o];
  return { name, groups: [...groups, allAuthenticated] };
}

/** Authenticates requests that present a certificate from this authenticator's client CA. */
export class X509Authenticator implements Authenticator {
  readonly #verifier: CertificateVerifier;
  // A connection carries one certificate: verify it once, not on every request (HTTP/2 multiplexes many).
  readonly #users = new WeakMap<object, UserInfo | undefined>();

  constructor(options: X509AuthenticatorOptions) {
    this.#verifier = new CertificateVerifier(options.clientCaPems);
  }

  authenticate(request: AuthenticationRequest): UserInfo | undefined {
    const socket = request.socket;
    // The handshake's verdict comes first: it checked the chain against every CA the listener trusts.
    if (!isTlsSocket(socket) || !socket.authorized) return undefined;
    // HTTP/2 requests of one session share one socket proxy, so it keys the cache too.
    if (this.#users.has(socket)) return this.#users.get(socket);
    const chain = peerCertificateChain(socket);
    const user = chain && this.#verifier.verify(chain.leaf, chain.intermediates) ? userOf(chain.peer) : undefined;
    this.#users.set(socket, user);
    return user;
  }
}
