/**
 * Cairn's generated certificates on an empty directory: files and modes, names and lifetimes,
 * serial numbers, SANs, and a real TLS handshake.
 */
import { X509Certificate } from 'node:crypto';
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePki, issueClientCertificate, loadServingCertificate } from './pki.js';
import type { Pki } from './pki.js';

const run = promisify(execFile);
const HOSTS = ['localhost', '127.0.0.1', '::1'] as const;
const YEAR_MS = 365 * 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

/** What the TLS server saw of one client. */
interface ServerView {
  readonly authorized: boolean;
  readonly authorizationError: string | undefined;
  readonly subject: Readonly<Record<string, string | readonly string[] | undefined>> | undefined;
}

/**
 * One handshake between a real TLS server using Cairn's serving material (client certs
 * requested, not required) and a client that verifies the server against the serving CA.
 */
async function handshake(pki: Pki, client: Omit<tls.ConnectionOptions, 'host' | 'port'>): Promise<ServerView> {
  const server = tls.createServer({
    cert: pki.servingCertPem,
    key: pki.servingKeyPem,
    ca: pki.clientCaPem,
    requestCert: true,
    rejectUnauthorized: false,
  });
  const seen = new Promise<ServerView>((resolve) => {
    server.once('secureConnection', (socket) => {
      const peer = socket.getPeerCertificate();
      resolve({
        authorized: socket.authorized,
        authorizationError: socket.authorizationError?.toString(),
        subject: peer.subject === undefined ? undefined : { ...peer.subject },
      });
      socket.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const socket = tls.connect({ host: '127.0.0.1', port, ca: pki.servingCaPem, ...client });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('secureConnect', resolve);
      socket.once('error', reject);
    });
    expect(socket.authorized).toBe(true);
    return await seen;
  } finally {
    socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function openssl(...args: readonly string[]): Promise<string> {
  const { stdout } = await run('openssl', [...args]);
  return stdout;
}

let root: string;
let dir: string;
let pki: Pki;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cairn-pki-'));
  dir = join(root, 'nested', 'pki');
  pki = await ensurePki(dir, { hosts: HOSTS });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('ensurePki on an empty directory', () => {
  it('creates the directory and writes every file, keys readable by the owner only', async () => {
    const files = {
      'serving-ca.crt': pki.servingCaPem,
      'serving-ca.key': undefined,
      'serving.crt': pki.servingCertPem,
      'serving.key': pki.servingKeyPem,
      'client-ca.crt': pki.clientCaPem,
      'client-ca.key': pki.clientCaKeyPem,
      'admin.crt': pki.adminCertPem,
      'admin.key': pki.adminKeyPem,
    };
    for (const [name, pem] of Object.entries(files)) {
      const path = join(dir, name);
      const content = await readFile(path, 'utf8');
      if (pem !== undefined) expect(content).toBe(pem);
      const mode = (await stat(path)).mode & 0o777;
      expect(mode, name).toBe(name.endsWith('.key') ? 0o600 : 0o644);
    }
  });

  it('names the CAs after their purpose and creation time, and gives the admin system:masters', () => {
    const servingCa = new X509Certificate(pki.servingCaPem);
    const clientCa = new X509Certificate(pki.clientCaPem);
    const admin = new X509Certificate(pki.adminCertPem);
    expect(servingCa.subject).toMatch(/^CN=cairn-serving-ca@\d{10}$/);
    expect(clientCa.subject).toMatch(/^CN=cairn-client-ca@\d{10}$/);
    expect(servingCa.ca).toBe(true);
    expect(clientCa.ca).toBe(true);
    expect(admin.subject.split('\n').sort()).toEqual(['CN=cairn-admin', 'O=system:masters']);
    expect(admin.issuer).toBe(clientCa.subject);
    expect(new X509Certificate(pki.servingCertPem).issuer).toBe(servingCa.subject);
  });

  it('gives CAs ten years and leaves one year, starting an hour in the past', () => {
    const now = Date.now();
    const check = (pem: string, years: number): void => {
      const cert = new X509Certificate(pem);
      expect(Math.abs(Date.parse(cert.validFrom) - (now - HOUR_MS))).toBeLessThan(60_000);
      expect(Math.abs(Date.parse(cert.validTo) - (now + years * YEAR_MS))).toBeLessThan(60_000);
    };
    check(pki.servingCaPem, 10);
    check(pki.clientCaPem, 10);
    check(pki.servingCertPem, 1);
    check(pki.adminCertPem, 1);
  });

  it('uses distinct random positive serial numbers', () => {
    const serials = [pki.servingCaPem, pki.clientCaPem, pki.servingCertPem, pki.adminCertPem].map((pem) => new X509Certificate(pem).serialNumber);
    expect(new Set(serials).size).toBe(4);
    for (const serial of serials) {
      expect(serial).toMatch(/^[0-9A-F]{32}$/);
      expect(Number.parseInt(serial.slice(0, 2), 16) & 0x80).toBe(0);
    }
  });

  it('covers every requested host in the serving certificate SANs, never via the CN', () => {
    const serving = new X509Certificate(pki.servingCertPem);
    expect(serving.checkHost('localhost', { subject: 'never' })).toBe('localhost');
    expect(serving.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(serving.checkIP('::1')).toBeDefined();
    expect(serving.checkHost('example.com', { subject: 'never' })).toBeUndefined();
  });
});

describe('a real TLS handshake', () => {
  it('authenticates the admin to the server and the server to the admin, by name', async () => {
    const view = await handshake(pki, { servername: 'localhost', cert: pki.adminCertPem, key: pki.adminKeyPem });
    expect(view.authorized).toBe(true);
    expect(view.subject?.['CN']).toBe('cairn-admin');
    expect(view.subject?.['O']).toBe('system:masters');
  });

  it('verifies the server by its IP address SAN when no server name is given', async () => {
    const view = await handshake(pki, { cert: pki.adminCertPem, key: pki.adminKeyPem });
    expect(view.authorized).toBe(true);
  });

  it('accepts other users minted from the client CA, with every group', async () => {
    const alice = issueClientCertificate(pki.clientCaPem, pki.clientCaKeyPem, {
      commonName: 'alice',
      organizations: ['dev', 'ops'],
    });
    const view = await handshake(pki, { servername: 'localhost', cert: alice.certPem, key: alice.keyPem });
    expect(view.authorized).toBe(true);
    expect(view.subject?.['CN']).toBe('alice');
    expect(view.subject?.['O']).toEqual(['dev', 'ops']);
  });

  it('sees a client certificate from another CA as unauthorized', async () => {
    const other = await ensurePki(join(root, 'other'), { hosts: HOSTS });
    const mallory = issueClientCertificate(other.clientCaPem, other.clientCaKeyPem, {
      commonName: 'cairn-admin',
      organizations: ['system:masters'],
    });
    const view = await handshake(pki, { servername: 'localhost', cert: mallory.certPem, key: mallory.keyPem });
    expect(view.authorized).toBe(false);
    expect(view.authorizationError).toBeDefined();
    expect(view.subject?.['CN']).toBe('cairn-admin');
  });

  it('sees a client without a certificate as unauthorized', async () => {
    const view = await handshake(pki, { servername: 'localhost' });
    expect(view.authorized).toBe(false);
  });
});

describe('openssl', () => {
  it('verifies both chains strictly and for their TLS purpose', async () => {
    const serving = await openssl('verify', '-x509_strict', '-purpose', 'sslserver', '-CAfile', join(dir, 'serving-ca.crt'), join(dir, 'serving.crt'));
    expect(serving.trim()).toBe(`${join(dir, 'serving.crt')}: OK`);
    const admin = await openssl('verify', '-x509_strict', '-purpose', 'sslclient', '-CAfile', join(dir, 'client-ca.crt'), join(dir, 'admin.crt'));
    expect(admin.trim()).toBe(`${join(dir, 'admin.crt')}: OK`);
  });

  it('does not verify the admin against the serving CA', async () => {
    await expect(openssl('verify', '-CAfile', join(dir, 'serving-ca.crt'), join(dir, 'admin.crt'))).rejects.toThrow();
  });

  it('shows SANs, server EKU and key identifiers on the serving certificate', async () => {
    const text = await openssl('x509', '-in', join(dir, 'serving.crt'), '-noout', '-text');
    expect(text).toMatch(/X509v3 Subject Alternative Name: *\n\s*DNS:localhost, IP Address:127\.0\.0\.1, IP Address:0:0:0:0:0:0:0:1\n/);
    expect(text).toMatch(/X509v3 Extended Key Usage: *\n\s*TLS Web Server Authentication\n/);
    expect(text).toMatch(/X509v3 Key Usage: critical\n\s*Digital Signature, Key Encipherment\n/);
    expect(text).toContain('X509v3 Subject Key Identifier');
    expect(text).toContain('X509v3 Authority Key Identifier');
  });

  it('shows client EKU on the admin certificate', async () => {
    const text = await openssl('x509', '-in', join(dir, 'admin.crt'), '-noout', '-text');
    expect(text).toMatch(/X509v3 Extended Key Usage: *\n\s*TLS Web Client Authentication\n/);
    expect(text).toContain('Subject: CN = cairn-admin, O = system:masters');
  });

  it('shows critical CA:TRUE and certificate signing on both CAs', async () => {
    for (const name of ['serving-ca.crt', 'client-ca.crt']) {
      const text = await openssl('x509', '-in', join(dir, name), '-noout', '-text');
      expect(text, name).toMatch(/X509v3 Basic Constraints: critical\n\s*CA:TRUE\n/);
      expect(text, name).toMatch(/X509v3 Key Usage: critical\n\s*[^\n]*Certificate Sign/);
      expect(text, name).toContain('X509v3 Subject Key Identifier');
    }
  });

  it('sees the subject encoded as UTF8String, which Go accepts with "@" in it', async () => {
    const asn1 = await openssl('asn1parse', '-in', join(dir, 'serving-ca.crt'));
    expect(asn1).toMatch(/UTF8STRING\s+:cairn-serving-ca@\d+/);
    expect(asn1).not.toContain('PRINTABLESTRING');
  });
});

describe('ensurePki on an existing directory', () => {
  it('returns the same material without regenerating anything', async () => {
    const again = await ensurePki(dir, { hosts: HOSTS });
    expect(again).toEqual(pki);
  });

  it('keeps the serving certificate for a subset of its hosts', async () => {
    const again = await ensurePki(dir, { hosts: ['localhost'] });
    expect(again.servingCertPem).toBe(pki.servingCertPem);
  });

  it('re-issues only the serving certificate, from the same CA, when hosts are added', async () => {
    const copy = join(root, 'hosts-changed');
    await cp(dir, copy, { recursive: true });
    const hosts = [...HOSTS, 'cairn.cairn-system.svc', '10.96.0.10'];
    const changed = await ensurePki(copy, { hosts });
    expect(changed.servingCertPem).not.toBe(pki.servingCertPem);
    expect(changed.servingKeyPem).not.toBe(pki.servingKeyPem);
    expect({ ...changed, servingCertPem: '', servingKeyPem: '' }).toEqual({
      ...pki,
      servingCertPem: '',
      servingKeyPem: '',
    });
    const serving = new X509Certificate(changed.servingCertPem);
    expect(serving.checkHost('cairn.cairn-system.svc', { subject: 'never' })).toBeDefined();
    expect(serving.checkIP('10.96.0.10')).toBe('10.96.0.10');
    expect(await readFile(join(copy, 'serving.crt'), 'utf8')).toBe(changed.servingCertPem);
    expect(await ensurePki(copy, { hosts })).toEqual(changed);
    const verified = await openssl('verify', '-x509_strict', '-CAfile', join(copy, 'serving-ca.crt'), join(copy, 'serving.crt'));
    expect(verified.trim()).toMatch(/: OK$/);
  });

  it('re-issues the serving certificate when its CA is replaced', async () => {
    const copy = join(root, 'ca-replaced');
    await cp(dir, copy, { recursive: true });
    await rm(join(copy, 'serving-ca.crt'));
    await rm(join(copy, 'serving-ca.key'));
    const replaced = await ensurePki(copy, { hosts: HOSTS });
    expect(replaced.servingCaPem).not.toBe(pki.servingCaPem);
    expect(new X509Certificate(replaced.servingCertPem).checkIssued(new X509Certificate(replaced.servingCaPem))).toBe(true);
    expect(replaced.clientCaPem).toBe(pki.clientCaPem);
    expect(replaced.adminCertPem).toBe(pki.adminCertPem);
  });

  it('re-issues a leaf whose key file is missing', async () => {
    const copy = join(root, 'admin-key-missing');
    await cp(dir, copy, { recursive: true });
    await rm(join(copy, 'admin.key'));
    const reissued = await ensurePki(copy, { hosts: HOSTS });
    expect(reissued.adminCertPem).not.toBe(pki.adminCertPem);
    expect(new X509Certificate(reissued.adminCertPem).subject).toBe(new X509Certificate(pki.adminCertPem).subject);
    expect((await stat(join(copy, 'admin.key'))).mode & 0o777).toBe(0o600);
  });

  it('refuses to replace a CA certificate whose key is missing', async () => {
    const copy = join(root, 'ca-key-missing');
    await cp(dir, copy, { recursive: true });
    await rm(join(copy, 'client-ca.key'));
    await expect(ensurePki(copy, { hosts: HOSTS })).rejects.toThrow(/client-ca\.key/);
  });
});

describe('issueClientCertificate', () => {
  it('honours the requested validity and issues client-auth-only certificates', () => {
    const bob = issueClientCertificate(pki.clientCaPem, pki.clientCaKeyPem, { commonName: 'bob' }, 7);
    const cert = new X509Certificate(bob.certPem);
    expect(cert.subject).toBe('CN=bob');
    expect(Math.abs(Date.parse(cert.validTo) - (Date.now() + 7 * 24 * HOUR_MS))).toBeLessThan(60_000);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(cert.checkIssued(new X509Certificate(pki.clientCaPem))).toBe(true);
  });
});

describe('loadServingCertificate', () => {
  it('serves the whole file and trusts the CA concatenated after the certificate, or the certificate alone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-pki-files-'));
    try {
      const { servingCertPem, servingKeyPem, servingCaPem } = await ensurePki(dir, { hosts: ['localhost'] });
      await writeFile(join(dir, 'chain.crt'), servingCertPem + servingCaPem);
      const chain = await loadServingCertificate(join(dir, 'chain.crt'), join(dir, 'serving.key'));
      expect(chain).toEqual({ certPem: servingCertPem + servingCaPem, keyPem: servingKeyPem, caPem: servingCaPem });
      const alone = await loadServingCertificate(join(dir, 'serving.crt'), join(dir, 'serving.key'));
      expect(alone.caPem).toBe(servingCertPem);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a key that is not the certificate’s', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-pki-files-'));
    try {
      await ensurePki(dir, { hosts: ['localhost'] });
      await expect(loadServingCertificate(join(dir, 'serving.crt'), join(dir, 'admin.key'))).rejects.toThrow(/admin\.key is not the key of .*serving\.crt/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
