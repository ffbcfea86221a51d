/**
 * Verifies a client certificate chain against one CA pool, as kube's x509
 * authenticator does with `x509.VerifyOptions{Roots, Intermediates, KeyUsages:
 * ClientAuth}`. The TLS listener trusts the union of every authenticator's CAs, so
 * its verdict (`socket.authorized`) only says that *some* pool vouches for the
 * certificate; each authenticator must check that *its own* pool does, or a
 * certificate from the front-proxy CA would log in by its CN.
 */
import { X509Certificate } from 'node:crypto';

/** Extended key usages that allow a certificate to authenticate a TLS client. */
const clientAuthUsages = ['1.3.6.1.5.5.7.3.2', '2.5.29.37.0'];

/** How many intermediates a chain may hold, as a bound on the search. */
const maxIntermediates = 8;

const pemBlock = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/** Parses every certificate in a PEM bundle; throws when it holds none. */
export function parseCertificates(pem: string): X509Certificate[] {
  const blocks = pem.match(pemBlock) ?? [];
  if (blocks.length === 0) throw new Error('no certificate in the PEM bundle');
  return blocks.map((block) => new X509Certificate(block));
}

function validAt(certificate: X509Certificate, now: Date): boolean {
  return certificate.validFromDate <= now && now <= certificate.validToDate;
}

/** Whether `parent` issued `child`: names and key identifiers match, and the signature checks out. */
function issued(child: X509Certificate, parent: X509Certificate): boolean {
  return child.checkIssued(parent) && child.verify(parent.publicKey);
}

/** Checks client certificate chains against one set of trusted roots. */
export class CertificateVerifier {
  readonly #roots: readonly X509Certificate[];

  /** `caPems`: the CA bundle(s) this verifier trusts, and nothing else. */
  constructor(caPems: readonly string[]) {
    this.#roots = Object.freeze(caPems.flatMap(parseCertificates));
  }

  /**
   * Whether `leaf` chains to one of the roots through `intermediates` (the rest of
   * what the client sent), every certificate valid at `now` and the leaf usable for
   * client authentication.
   */
  verify(leaf: X509Certificate, intermediates: readonly X509Certificate[], now = new Date()): boolean {
    if (leaf.keyUsage !== undefined && !leaf.keyUsage.some((usage) => clientAuthUsages.includes(usage))) return false;
    return this.#chains(leaf, intermediates.filter((c) => c.ca).slice(0, maxIntermediates), now, new Set());
  }

  #chains(certificate: X509Certificate, intermediates: readonly X509Certificate[], now: Date, used: Set<X509Certificate>): boolean {
    if (!validAt(certificate, now)) return false;
    if (this.#roots.some((root) => validAt(root, now) && (root.raw.equals(certificate.raw) || issued(certificate, root)))) return true;
    for (const next of intermediates) {
      if (used.has(next) || !issued(certificate, next)) continue;
      used.add(next);
      if (this.#chains(next, intermediates, now, used)) return true;
      used.delete(next);
    }
    return false;
  }
}
