/**
 * The admin kubeconfig Cairn writes: its YAML, its file mode, and a TLS connection made with
 * it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderKubeconfig, writeKubeconfig } from './kubeconfig.js';
import { ensurePki } from './pki.js';
import type { Pki } from './pki.js';
import { kubectlAvailable } from '../../test/support/kubectl.js';

const run = promisify(execFile);

const INPUT = Object.freeze({
  server: 'https://127.0.0.1:8443',
  caPem: '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n',
  clientCertPem: '-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n',
  clientKeyPem: '-----BEGIN RSA PRIVATE KEY-----\nKEY\n-----END RSA PRIVATE KEY-----\n',
});

const decode = (data: string): string => Buffer.from(data, 'base64').toString('utf8');

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cairn-kubeconfig-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('renderKubeconfig', () => {
  it('renders one cluster, user and current context with embedded base64 data', () => {
    const config = parse(renderKubeconfig(INPUT));
    expect(config).toMatchObject({ apiVersion: 'v1', kind: 'Config', 'current-context': 'cairn' });
    expect(config.clusters).toHaveLength(1);
    expect(config.users).toHaveLength(1);
    expect(config.contexts).toEqual([{ name: 'cairn', context: { cluster: 'cairn', user: 'cairn-admin', namespace: 'default' } }]);
    const [cluster] = config.clusters;
    expect(cluster.name).toBe('cairn');
    expect(cluster.cluster.server).toBe(INPUT.server);
    expect(decode(cluster.cluster['certificate-authority-data'])).toBe(INPUT.caPem);
    const [user] = config.users;
    expect(user.name).toBe('cairn-admin');
    expect(decode(user.user['client-certificate-data'])).toBe(INPUT.clientCertPem);
    expect(decode(user.user['client-key-data'])).toBe(INPUT.clientKeyPem);
  });

  it('uses the given cluster, user and namespace names', () => {
    const config = parse(renderKubeconfig({ ...INPUT, clusterName: 'kind', userName: 'alice', namespace: 'team-a' }));
    expect(config.clusters[0].name).toBe('kind');
    expect(config.users[0].name).toBe('alice');
    expect(config.contexts).toEqual([{ name: 'kind', context: { cluster: 'kind', user: 'alice', namespace: 'team-a' } }]);
    expect(config['current-context']).toBe('kind');
  });
});

describe('writeKubeconfig', () => {
  it('writes the rendered YAML readable by the owner only, even over an existing file', async () => {
    const path = join(root, 'existing.kubeconfig');
    await writeFile(path, 'old', { mode: 0o644 });
    await writeKubeconfig(path, INPUT);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(parse(await readFile(path, 'utf8'))).toEqual(parse(renderKubeconfig(INPUT)));
  });
});

describe.runIf(kubectlAvailable)('kubectl (needs kubectl on PATH; under CI its absence fails the run)', () => {
  let pki: Pki;
  let path: string;

  beforeAll(async () => {
    pki = await ensurePki(join(root, 'pki'), { hosts: ['localhost', '127.0.0.1', '::1'] });
    path = join(root, 'admin.kubeconfig');
  });

  const kubectl = async (...args: readonly string[]): Promise<string> => {
    const { stdout } = await run('kubectl', ['--kubeconfig', path, ...args], {
      env: { ...process.env, HOME: root, NO_PROXY: '*' },
    });
    return stdout;
  };

  it('reads the file back', async () => {
    await writeKubeconfig(path, {
      server: 'https://127.0.0.1:6443',
      caPem: pki.servingCaPem,
      clientCertPem: pki.adminCertPem,
      clientKeyPem: pki.adminKeyPem,
    });
    expect(await kubectl('config', 'current-context')).toBe('cairn\n');
    expect(await kubectl('config', 'view', '--raw', '-o', 'jsonpath={.clusters[0].cluster.server}')).toBe('https://127.0.0.1:6443');
    expect(await kubectl('config', 'view', '--minify', '-o', 'jsonpath={.contexts[0].context.namespace}')).toBe('default');
    const keyData = await kubectl('config', 'view', '--raw', '-o', 'jsonpath={.users[0].user.client-key-data}');
    expect(decode(keyData)).toBe(pki.adminKeyPem);
  });

  it('connects with it to a TLS server using the serving certificate, Go verifying both chains', async () => {
    const server = createServer(
      { cert: pki.servingCertPem, key: pki.servingKeyPem, ca: pki.clientCaPem, requestCert: true, rejectUnauthorized: false },
      (request, response) => {
        const socket = request.socket as TLSSocket;
        if (!socket.authorized) {
          response.writeHead(401).end();
          return;
        }
        const subject = socket.getPeerCertificate().subject;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ path: new URL(request.url ?? '/', 'https://cairn').pathname, user: subject.CN, groups: subject.O }));
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (const host of ['127.0.0.1', 'localhost']) {
        await writeKubeconfig(path, {
          server: `https://${host}:${port}`,
          caPem: pki.servingCaPem,
          clientCertPem: pki.adminCertPem,
          clientKeyPem: pki.adminKeyPem,
        });
        const body = await kubectl('get', '--raw', '/whoami', '--request-timeout', '10s');
        expect(JSON.parse(body), host).toEqual({ path: '/whoami', user: 'cairn-admin', groups: 'system:masters' });
      }
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
