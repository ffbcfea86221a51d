/**
 * Client certificates: those accepted (chaining to a CA of the bundle, valid now, meant for
 * client authentication) and those refused.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensurePki, issueClientCertificate, type Pki } from '../server/pki.js';
import { CertificateVerifier, parseCertificates } from './certificate-verifier.js';

describe('CertificateVerifier', () => {
  let dir: string;
  let ours: Pki;
  let theirs: Pki;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-verifier-'));
    // Two PKIs made in the same second give their client CAs the same subject name: hold the clock still so they are.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      [ours, theirs] = await Promise.all([ensurePki(join(dir, 'ours'), { hosts: ['localhost'] }), ensurePki(join(dir, 'theirs'), { hosts: ['localhost'] })]);
    } finally {
      vi.useRealTimers();
    }
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const cert = (pem: string) => new X509Certificate(pem);

  it('accepts a client certificate its own CA issued', () => {
    const verifier = new CertificateVerifier([ours.clientCaPem]);
    expect(verifier.verify(cert(ours.adminCertPem), [])).toBe(true);
    const jane = issueClientCertificate(ours.clientCaPem, ours.clientCaKeyPem, { commonName: 'jane' });
    expect(verifier.verify(cert(jane.certPem), [])).toBe(true);
  });

  it('refuses a certificate of another CA, even one with the same subject name', () => {
    expect(cert(ours.clientCaPem).subject).toBe(cert(theirs.clientCaPem).subject);
    const verifier = new CertificateVerifier([ours.clientCaPem]);
    expect(verifier.verify(cert(theirs.adminCertPem), [])).toBe(false);
    // Sending the other CA along as an intermediate does not help it.
    expect(verifier.verify(cert(theirs.adminCertPem), [cert(theirs.clientCaPem)])).toBe(false);
  });

  it('trusts every CA of its bundle', () => {
    const verifier = new CertificateVerifier([`${ours.clientCaPem}\n${theirs.clientCaPem}`]);
    expect(verifier.verify(cert(ours.adminCertPem), [])).toBe(true);
    expect(verifier.verify(cert(theirs.adminCertPem), [])).toBe(true);
  });

  it('refuses a certificate outside its validity', () => {
    const verifier = new CertificateVerifier([ours.clientCaPem]);
    const admin = cert(ours.adminCertPem);
    expect(verifier.verify(admin, [], new Date(admin.validToDate.getTime() + 1000))).toBe(false);
    expect(verifier.verify(admin, [], new Date(admin.validFromDate.getTime() - 1000))).toBe(false);
  });

  it('refuses a certificate not meant for client authentication', () => {
    // The serving certificate carries the serverAuth usage only; its CA is trusted here.
    const verifier = new CertificateVerifier([ours.servingCaPem]);
    expect(verifier.verify(cert(ours.servingCertPem), [])).toBe(false);
  });

  it('parses PEM bundles and refuses text without a certificate', () => {
    expect(parseCertificates(`${ours.clientCaPem}${theirs.servingCaPem}`)).toHaveLength(2);
    expect(() => new CertificateVerifier(['not a certificate'])).toThrow(/no certificate/);
  });
});
