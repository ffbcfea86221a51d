/**
 * Serving TLS as kube-apiserver configures it: the certificate and key of
 * `--tls-cert-file`/`--tls-private-key-file` reloaded when they change on disk (a pair
 * that does not match is logged and ignored), `--tls-min-version` and
 * `--tls-cipher-suites` with kube's names. Real files, a real server, real handshakes.
 */
import { X509Certificate } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import tls from 'node:tls';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/server/config.js';
import { ensureServingPki, type ServingPki } from '../../src/server/pki.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { eventually } from '../support/eventually.js';
import { onJsonLines } from '../support/json-lines.js';
import { startTestServer } from '../support/test-server.js';

const hosts = ['127.0.0.1', 'localhost'];

/** What a new connection is served: the certificate's fingerprint, the protocol, the cipher (IANA name); or the handshake's error. */
function handshake(port: number, options: tls.ConnectionOptions = {}): Promise<{ fingerprint: string; protocol: string; cipher: string } | Error> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...options }, () => {
      resolve({ fingerprint: socket.getPeerCertificate().fingerprint256, protocol: String(socket.getProtocol()), cipher: socket.getCipher().standardName });
      socket.end();
    });
    socket.on('error', resolve);
  });
}

const fingerprintOf = (pair: ServingPki): string => new X509Certificate(pair.certPem).fingerprint256;

describe('serving certificate reload', () => {
  let dir: string;
  let server: RunningServer;
  const logs: { level: number; msg: string }[] = [];
  const certFile = () => join(dir, 'serving', 'tls.crt');
  const keyFile = () => join(dir, 'serving', 'tls.key');
  /** Replaces a file at once, as a Secret volume update or `mv` does. */
  const replace = async (file: string, text: string) => {
    await writeFile(`${file}.new`, text);
    await rename(`${file}.new`, file);
  };
  let first: ServingPki;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-tls-'));
    first = await ensureServingPki(join(dir, 'ca-a'), { hosts });
    await mkdir(join(dir, 'serving'));
    await replace(certFile(), first.certPem + first.caPem);
    await replace(keyFile(), first.keyPem);
    const log = new PassThrough();
    onJsonLines(log, (line) => logs.push(line as { level: number; msg: string }), { lenient: true });
    const args = ['--port', '0', '--data-dir', join(dir, 'data'), '--no-controller', '--tls-cert-file', certFile(), '--tls-private-key-file', keyFile()];
    server = await startServer(parseConfig([...args, '--tls-min-version', 'VersionTLS13'], {}), pino({ level: 'info' }, log));
    await server.ready;
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves a new pair to new connections once both files changed, while an open connection keeps working', async () => {
    // One keep-alive connection, open before the change.
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<{ status: number; fingerprint: string }>((resolve, reject) => {
        https
          .get(`${server.url}${path}`, { agent, ca: first.caPem, cert: server.pki.adminCertPem, key: server.pki.adminKeyPem }, (res) => {
            const fingerprint = (res.socket as tls.TLSSocket).getPeerCertificate().fingerprint256;
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, fingerprint }));
          })
          .on('error', reject);
      });
    expect(await get('/apis/cairn.dev/v1/runnerclasses')).toEqual({ status: 200, fingerprint: fingerprintOf(first) });

    // Another pair from another CA.
    const second = await ensureServingPki(join(dir, 'ca-b'), { hosts });
    await replace(certFile(), second.certPem + second.caPem);
    await replace(keyFile(), second.keyPem);
    await eventually('the new certificate served', 10_000, async () => {
      const served = await handshake(server.port);
      return !(served instanceof Error) && served.fingerprint === fingerprintOf(second);
    });
    // The connection opened before still answers, with the certificate it began with, and the client certificate still authenticates.
    expect(await get('/apis/cairn.dev/v1/runnerclasses')).toEqual({ status: 200, fingerprint: fingerprintOf(first) });
    agent.destroy();
    // The rest of the TLS configuration stays: TLS 1.2 is still refused.
    expect(await handshake(server.port, { maxVersion: 'TLSv1.2' })).toBeInstanceOf(Error);
    // And on a new connection the admin's certificate still authenticates, verified against the new CA.
    const fresh = await new Promise<number>((resolve, reject) => {
      https
        .get(
          `${server.url}/apis/cairn.dev/v1/runnerclasses`,
          { agent: false, ca: second.caPem, cert: server.pki.adminCertPem, key: server.pki.adminKeyPem },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        )
        .on('error', reject);
    });
    expect(fresh).toBe(200);
  });

  it('keeps serving the pair it has when the files do not match, and logs it; the matching pair is then served', async () => {
    const served = await handshake(server.port);
    if (served instanceof Error) throw served;
    // A certificate of the same CA with another serial: re-issued once its files are gone.
    await rm(join(dir, 'ca-a', 'serving.crt'));
    await rm(join(dir, 'ca-a', 'serving.key'));
    const third = await ensureServingPki(join(dir, 'ca-a'), { hosts });
    expect(new X509Certificate(third.certPem).serialNumber).not.toBe(new X509Certificate(first.certPem).serialNumber);
    const mismatches = () => logs.filter((l) => l.level === 40 && l.msg.includes('do not hold a matching pair: still serving the previous one')).length;
    const before = mismatches();
    await replace(certFile(), third.certPem + third.caPem);
    await eventually('the mismatch logged', 10_000, async () => mismatches() > before);
    expect(await handshake(server.port)).toMatchObject({ fingerprint: served.fingerprint });
    await replace(keyFile(), third.keyPem);
    await eventually('the matching pair served', 10_000, async () => {
      const now = await handshake(server.port);
      return !(now instanceof Error) && now.fingerprint === fingerprintOf(third);
    });
    expect(logs.some((l) => l.msg === 'serving certificate reloaded')).toBe(true);
  });
});

describe('--tls-min-version and --tls-cipher-suites', () => {
  it('refuses a client that offers only TLS 1.2 when the minimum is TLS 1.3', async () => {
    const server = await startTestServer({ backend: 'pglite', args: ['--tls-min-version', 'VersionTLS13'] });
    try {
      expect(await handshake(server.port, { maxVersion: 'TLSv1.2' })).toBeInstanceOf(Error);
      expect(await handshake(server.port)).toMatchObject({ protocol: 'TLSv1.3' });
    } finally {
      await server.destroy();
    }
  });

  it('serves TLS 1.2 with the listed suites only, by kube’s names; TLS 1.3 keeps its own', async () => {
    const server = await startTestServer({ backend: 'pglite', args: ['--tls-cipher-suites', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256'] });
    try {
      const tls12 = { maxVersion: 'TLSv1.2' } as const;
      expect(await handshake(server.port, { ...tls12, ciphers: 'ECDHE-RSA-AES256-GCM-SHA384' })).toBeInstanceOf(Error);
      expect(await handshake(server.port, { ...tls12, ciphers: 'ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-AES128-GCM-SHA256' })).toMatchObject({
        protocol: 'TLSv1.2',
        cipher: 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
      });
      expect(await handshake(server.port)).toMatchObject({ protocol: 'TLSv1.3' });
    } finally {
      await server.destroy();
    }
  });
});
