/**
 * Front-proxy authentication over the real TLS server, started with kube-apiserver's
 * `--requestheader-*` flags: a client certificate from the request-header CA with an
 * allowed CN makes the `X-Remote-*` headers the user, over HTTP/1.1 and HTTP/2 as
 * kube-apiserver's aggregator sends them. Spoofed headers on any other connection (no
 * certificate, the admin's, another CA's, a disallowed CN, a client-CA certificate
 * with the front proxy's CN) never make a request the claimed user. Who a request was
 * served as is read from the audit seam, which records the authenticated user. A
 * request-header CA that is also the client CA needs allowed names, as kube-apiserver says.
 */
import http2 from 'node:http2';
import https from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditBackend, AuditEvent } from '../../src/audit/audit.js';
import type { UserInfo } from '../../src/auth/user-info.js';
import { parseConfig } from '../../src/server/config.js';
import { ensurePki, issueClientCertificate, type IssuedCertificate } from '../../src/server/pki.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { eventsOf } from '../support/audit-log.js';
import { issueOtherCa } from '../support/other-ca.js';

/** Keeps the user of every request, by audit ID. */
class RecordingAudit implements AuditBackend {
  readonly #users = new Map<string, UserInfo>();

  processEvents(...events: AuditEvent[]): void {
    for (const event of events) if (event.stage === 'RequestReceived') this.#users.set(event.auditID, event.user);
  }

  userOf(auditID: string): UserInfo | undefined {
    return this.#users.get(auditID);
  }
}

const pipelines = '/apis/cairn.dev/v1/namespaces/default/pipelines';

/** What kube-apiserver's aggregator would send for alice, spoofed by whoever sends it here. */
const aliceHeaders: http2.OutgoingHttpHeaders = {
  'X-Remote-User': 'alice',
  'X-Remote-Uid': 'alice-uid',
  'X-Remote-Group': ['devs', 'system:masters', 'a, b'],
  'X-Remote-Extra-Acme.com%2Fproject': 'x',
  'X-Remote-Extra-Scopes': ['read', 'write'],
};

const alice: UserInfo = {
  name: 'alice',
  uid: 'alice-uid',
  groups: ['devs', 'system:masters', 'a, b', 'system:authenticated'],
  extra: { 'acme.com/project': ['x'], scopes: ['read', 'write'] },
};

interface Served {
  readonly status: number;
  /** The user the server authenticated the request as. */
  readonly user: UserInfo | undefined;
}

let dataDir: string;
let server: RunningServer;
const audit = new RecordingAudit();
let frontProxy: IssuedCertificate;
let disallowedCn: IssuedCertificate;
let otherCa: IssuedCertificate;
let clientCaFrontProxyCn: IssuedCertificate;
let auditLog: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'cairn-front-proxy-'));
  // A front-proxy CA of its own, as kube-apiserver's --requestheader-client-ca-file is.
  const frontProxyCa = await ensurePki(join(dataDir, 'front-proxy-ca'), { hosts: ['localhost'] });
  frontProxy = issueClientCertificate(frontProxyCa.clientCaPem, frontProxyCa.clientCaKeyPem, { commonName: 'front-proxy-client' });
  disallowedCn = issueClientCertificate(frontProxyCa.clientCaPem, frontProxyCa.clientCaKeyPem, {
    commonName: 'someone-else',
    organizations: ['system:masters'],
  });
  otherCa = await issueOtherCa();
  const caFile = join(dataDir, 'front-proxy-ca.crt');
  await writeFile(caFile, frontProxyCa.clientCaPem);
  const policyFile = join(dataDir, 'audit-policy.yaml');
  await writeFile(policyFile, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
  auditLog = join(dataDir, 'audit.log');
  const config = parseConfig(
    [
      '--port',
      '0',
      '--data-dir',
      join(dataDir, 'server'),
      '--no-controller',
      '--requestheader-client-ca-file',
      caFile,
      '--requestheader-allowed-names',
      'front-proxy-client',
      '--audit-policy-file',
      policyFile,
      '--audit-log-path',
      auditLog,
    ],
    {},
  );
  server = await startServer(config, pino({ level: process.env.CAIRN_TEST_LOG ?? 'silent' }), { audit });
  await server.ready;
  clientCaFrontProxyCn = issueClientCertificate(server.pki.clientCaPem, server.pki.clientCaKeyPem, { commonName: 'front-proxy-client' });
});

afterAll(async () => {
  await server?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** GETs `path` over HTTP/1.1 with `headers` (an array is one header line per item) and the given client certificate. */
function getHttp1(path: string, headers: http2.OutgoingHttpHeaders, cert: IssuedCertificate | null): Promise<Served> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${server.url}${path}`, { headers, ca: server.pki.servingCaPem, cert: cert?.certPem, key: cert?.keyPem, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, user: audit.userOf(String(res.headers['audit-id'])) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The same over HTTP/2, as kube-apiserver's proxy speaks to aggregated servers. */
function getHttp2(path: string, headers: http2.OutgoingHttpHeaders, cert: IssuedCertificate | null): Promise<Served> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(server.url, { ca: server.pki.servingCaPem, cert: cert?.certPem, key: cert?.keyPem });
    session.on('error', reject);
    const stream = session.request({ ':path': path, ...headers });
    stream.on('response', (responseHeaders) => {
      stream.resume();
      stream.on('end', () => {
        session.close();
        resolve({ status: Number(responseHeaders[':status']), user: audit.userOf(String(responseHeaders['audit-id'])) });
      });
    });
    stream.on('error', reject);
  });
}

describe.each([
  { protocol: 'HTTP/1.1', get: getHttp1 },
  { protocol: 'HTTP/2', get: getHttp2 },
])('front-proxy authentication over $protocol', ({ get }) => {
  it('serves a request from the front proxy as the user its headers name, with every group line and decoded extra', async () => {
    const served = await get(pipelines, aliceHeaders, frontProxy);
    expect(served.status).toBe(200);
    expect(served.user).toEqual(alice);
  });

  it('leaves a front-proxy request without a username header to the other authenticators: anonymous, 401', async () => {
    const served = await get(pipelines, { 'X-Remote-Group': 'system:masters' }, frontProxy);
    expect(served.status).toBe(401);
    expect(served.user?.name).toBe('system:anonymous');
  });

  it.each([
    { who: 'no client certificate', cert: () => null, status: 401, name: 'system:anonymous' },
    { who: 'a certificate from a CA the server does not trust', cert: () => otherCa, status: 401, name: 'system:anonymous' },
    { who: 'a front-proxy CA certificate whose CN is not allowed', cert: () => disallowedCn, status: 401, name: 'system:anonymous' },
  ])('never serves spoofed headers with $who as the claimed user', async ({ cert, status, name }) => {
    const served = await get(pipelines, aliceHeaders, cert());
    expect(served.status).toBe(status);
    expect(served.user).toEqual({ name, groups: ['system:unauthenticated'] });
  });

  it('serves spoofed headers with the admin certificate as the admin, not the claimed user', async () => {
    const served = await get(pipelines, aliceHeaders, { certPem: server.pki.adminCertPem, keyPem: server.pki.adminKeyPem });
    expect(served.status).toBe(200);
    expect(served.user).toEqual({ name: 'cairn-admin', groups: ['system:masters', 'system:authenticated'] });
  });

  it('trusts the front proxy CN only from the request-header CA: from the client CA it is an ordinary user, refused outside the admin group', async () => {
    const served = await get(pipelines, aliceHeaders, clientCaFrontProxyCn);
    expect(served.status).toBe(403);
    expect(served.user).toEqual({ name: 'front-proxy-client', groups: ['system:authenticated'] });
  });
});

describe('the audit log of a front-proxy request', () => {
  it('names the user the headers name, with its uid, groups and extra, not the front proxy', async () => {
    const res = await new Promise<{ status: number; auditID: string }>((resolve, reject) => {
      https
        .get(
          `${server.url}${pipelines}`,
          { headers: aliceHeaders, ca: server.pki.servingCaPem, cert: frontProxy.certPem, key: frontProxy.keyPem, agent: false },
          (r) => {
            r.resume();
            r.on('end', () => resolve({ status: r.statusCode ?? 0, auditID: String(r.headers['audit-id']) }));
          },
        )
        .on('error', reject);
    });
    expect(res.status).toBe(200);
    const events = await eventsOf(auditLog, res.auditID, 2);
    expect(events.map((e) => [e.stage, e.user])).toEqual(
      ['RequestReceived', 'ResponseComplete'].map((stage) => [
        stage,
        { username: 'alice', uid: 'alice-uid', groups: alice.groups, extra: { 'acme.com/project': ['x'], scopes: ['read', 'write'] } },
      ]),
    );
  });
});

describe('front-proxy configuration', () => {
  it('refuses to start when the request-header CA is the client CA and no allowed names are given, as kube-apiserver does', async () => {
    const dir = join(dataDir, 'overlap');
    // The PKI the server will find in its data directory, whose client CA the flag then names.
    await ensurePki(join(dir, 'pki'), { hosts: ['localhost', '127.0.0.1', '::1'] });
    const caFile = join(dir, 'pki', 'client-ca.crt');
    const config = parseConfig(['--port', '0', '--data-dir', dir, '--no-controller', '--requestheader-client-ca-file', caFile], {});
    await expect(startServer(config, pino({ level: 'silent' }))).rejects.toThrow(/overlapping certificates; --requestheader-allowed-names must be specified/);
  });
});
