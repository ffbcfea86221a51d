/**
 * `--tls-min-version` and `--tls-cipher-suites`, mapped from kube's and Go's names to Node's
 * and OpenSSL's.
 */
import { describe, expect, it } from 'vitest';
import { servingTlsOptions, tlsMinVersion } from './tls-options.js';

describe('servingTlsOptions', () => {
  it('maps kube’s versions to Node’s protocols', () => {
    expect(['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'].map(tlsMinVersion)).toEqual(['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3']);
    expect(servingTlsOptions(undefined, [])).toEqual({ insecureSuites: [] });
  });

  it('maps Go’s suite names to OpenSSL’s for TLS 1.2, once each, leaving TLS 1.3’s suites to their defaults', () => {
    expect(
      servingTlsOptions('VersionTLS12', [
        'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
        'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
        'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
        'TLS_AES_256_GCM_SHA384',
      ]),
    ).toEqual({ minVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305', insecureSuites: [] });
  });

  it('names the insecure suites it serves, for kube’s warning', () => {
    expect(servingTlsOptions(undefined, ['TLS_RSA_WITH_AES_128_GCM_SHA256'])).toEqual({
      ciphers: 'AES128-GCM-SHA256',
      insecureSuites: ['TLS_RSA_WITH_AES_128_GCM_SHA256'],
    });
  });

  it('leaves TLS 1.2 without suites when only TLS 1.3 ones are named, as Go does', () => {
    expect(servingTlsOptions('VersionTLS12', ['TLS_AES_128_GCM_SHA256'])).toEqual({ minVersion: 'TLSv1.3', insecureSuites: [] });
  });
});
