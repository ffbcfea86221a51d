/**
 * Client-certificate authentication: a certificate that chains to this
 * authenticator's own CA pool names the user (CN) and groups (O), as kube-apiserver's
 * x509 authenticator does. The listener asks for certificates from every CA any
 * authenticator trusts; this one accepts only those its own pool verifies.
 */
import { X509Certificate } from 'node:crypto';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import { CertificateVerifier } from './certificate-verifier.js';
import { allAuthenticated, type AuthenticationRequest, type Authenticator, type ConnectionSocket, type UserInfo } from './user-info.js';

/** What the authenticator trusts. */
export interface X509AuthenticatorOptions {
  /** The client CA bundle(s) whose certificates name users (kube's `--client-ca-file`). */
  readonly clientCaPems: readonly string[];
}

function isTlsSocket(socket: ConnectionSocket): socket is TLSSocket {
  return typeof (socket as Partial<TLSSocket>).getPeerCertificate === 'function';
}

/** How many certificates of a client's chain are looked at, as a bound on the walk. */
const maxChainLength = 10;

/** The leaf the client presented, as Node parsed it, and the rest of its chain. */
function peerChain(socket: TLSSocket): { peer: DetailedPeerCertificate; leaf: X509Certificate; intermediates: X509Certificate[] } | undefined {
  const peer = socket.getPeerCertificate(true) as DetailedPeerCertificate | undefined;
  if (!peer?.raw) return undefined;
  // The chain ends with a certificate that is its own issuer; the verifier decides what each one is worth.
  const seen = new Set<DetailedPeerCertificate>([peer]);
  for (let c = peer.issuerCertificate; c?.raw && !seen.has(c) && seen.size < maxChainLength; c = c.issuerCertificate) seen.add(c);
  seen.delete(peer);
  return { peer, leaf: new X509Certificate(peer.raw), intermediates: [...seen].map((c) => new X509Certificate(c.raw)) };
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
    const chain = peerChain(socket);
    const user = chain && this.#verifier.verify(chain.leaf, chain.intermediates) ? userOf(chain.peer) : undefined;
    this.#users.set(socket, user);
    return user;
  }
}
