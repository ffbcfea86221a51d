/**
 * kube-apiserver's `--tls-min-version` and `--tls-cipher-suites`, with its names (Go's
 * crypto/tls constants, the IANA names), translated to what Node's TLS (OpenSSL) takes.
 *
 * - Versions: `VersionTLS10` to `VersionTLS13`. OpenSSL 3 refuses TLS 1.0 and 1.1 at its
 *   default security level (their handshakes sign with SHA-1), so a minimum of 1.0 or 1.1
 *   is accepted, as kube accepts it, but clients still need 1.2: Cairn does not lower
 *   OpenSSL's security level to serve them.
 * - Cipher suites apply to TLS 1.2 (and older). The TLS 1.3 names are accepted, as kube
 *   accepts them, and change nothing: Go does not let TLS 1.3 suites be configured, and
 *   Cairn keeps Node's TLS 1.3 defaults likewise.
 * - A name kube does not know is a startup error naming it, and so is one of kube's
 *   insecure suites that this OpenSSL no longer implements (RC4, 3DES); the insecure ones
 *   it implements are served, with the warning kube logs.
 */
import { getCiphers, type SecureVersion } from 'node:tls';

/** kube's `--tls-min-version` values and the protocol each names. */
const versions: Readonly<Record<string, SecureVersion>> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

/** Go's TLS 1.3 suites: valid names, not configurable. */
const tls13Suites: ReadonlySet<string> = new Set(['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256']);

/** Go's secure TLS 1.2 suites (`tls.CipherSuites()`, with the legacy CHACHA20 aliases) and their OpenSSL names. */
const secureSuites: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
};

/** Go's insecure suites (`tls.InsecureCipherSuites()`) and their OpenSSL names. */
const insecureSuites: Readonly<Record<string, string>> = {
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
};

/** The protocol `--tls-min-version` names; throws for a name kube does not know. */
export function tlsMinVersion(name: string): SecureVersion {
  const version = versions[name];
  if (version === undefined) throw new Error(`unknown tls version "${name}" for --tls-min-version: possible values are ${Object.keys(versions).join(', ')}`);
  return version;
}

/** What `--tls-min-version` and `--tls-cipher-suites` configure, as Node's TLS options. */
export interface ServingTlsOptions {
  readonly minVersion?: SecureVersion;
  /** The OpenSSL cipher list for TLS 1.2 and older; Node's TLS 1.3 suites stand beside it. */
  readonly ciphers?: string;
  /** The insecure suites named, for kube's warning. */
  readonly insecureSuites: readonly string[];
}

/**
 * Translates kube's names (validated already by {@link tlsMinVersion} and
 * {@link cipherSuites}). Naming TLS 1.3 suites only leaves TLS 1.2 without any, as in Go:
 * only TLS 1.3 handshakes succeed.
 */
export function servingTlsOptions(minVersionName: string | undefined, suiteNames: readonly string[]): ServingTlsOptions {
  const suites = cipherSuites(suiteNames);
  const onlyTls13 = suiteNames.length > 0 && suites.ciphers === undefined;
  const minVersion = onlyTls13 ? 'TLSv1.3' : minVersionName === undefined ? undefined : tlsMinVersion(minVersionName);
  return { ...(minVersion ? { minVersion } : {}), ...(suites.ciphers ? { ciphers: suites.ciphers } : {}), insecureSuites: suites.insecure };
}

/** Translates kube's cipher suite names; throws naming the first that is unknown or that OpenSSL cannot serve. */
export function cipherSuites(names: readonly string[]): { readonly ciphers?: string; readonly insecure: readonly string[] } {
  const available = new Set(getCiphers());
  const openssl: string[] = [];
  const insecure: string[] = [];
  for (const name of names) {
    if (tls13Suites.has(name)) continue;
    const mapped = secureSuites[name] ?? insecureSuites[name];
    if (mapped === undefined) throw new Error(`Cipher suite ${name} not supported or doesn't exist (--tls-cipher-suites)`);
    if (!available.has(mapped.toLowerCase()))
      throw new Error(`Cipher suite ${name} is not available in the TLS library this server runs on (--tls-cipher-suites)`);
    if (insecureSuites[name] !== undefined) insecure.push(name);
    if (!openssl.includes(mapped)) openssl.push(mapped);
  }
  return { ...(openssl.length ? { ciphers: openssl.join(':') } : {}), insecure };
}
