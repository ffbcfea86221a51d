/**
 * The client certificate chain a TLS connection presented, read once for the
 * authenticators that each verify it against their own CA pool (x509, front proxy).
 */
import { X509Certificate } from 'node:crypto';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { ConnectionSocket } from './user-info.js';

/** A client's leaf certificate, as Node parsed it and as an X509Certificate, and the rest of what it sent. */
export interface PeerCertificateChain {
  readonly peer: DetailedPeerCertificate;
  readonly leaf: X509Certificate;
  readonly intermediates: readonly X509Certificate[];
}

/** Whether a request came over TLS (HTTP/2's socket proxy answers the same calls). */
export function isTlsSocket(socket: ConnectionSocket): socket is TLSSocket {
  return typeof (socket as Partial<TLSSocket>).getPeerCertificate === 'function';
}

/** How many certificates of a client's chain are looked at, as a bound on the walk. */
const maxChainLength = 10;

/** The chain the client presented; undefined when it sent no certificate. */
export function peerCertificateChain(socket: TLSSocket): PeerCertificateChain | undefined {
  const peer = socket.getPeerCertificate(true) as DetailedPeerCertificate | undefined;
  if (!peer?.raw) return undefined;
  // The chain ends with a certificate that is its own issuer; the verifier decides what each one is worth.
  const seen = new Set<DetailedPeerCertificate>([peer]);
  for (let c = peer.issuerCertificate; c?.raw && !seen.has(c) && seen.size < maxChainLength; c = c.issuerCertificate) seen.add(c);
  seen.delete(peer);
  return { peer, leaf: new X509Certificate(peer.raw), intermediates: [...seen].map((c) => new X509Certificate(c.raw)) };
}
