/**
 * Loading a kubeconfig: embedded certificates, or files relative to it, for the context
 * asked for, and the bearer tokens and TLS settings the delegation kubeconfigs carry.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { renderKubeconfig } from '../../server/kubeconfig.js';
import { loadKubeconfig } from './kubeconfig.js';

describe('loadKubeconfig', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-kubeconfig-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the embedded certificates of the kubeconfig the server writes', async () => {
    const path = join(dir, 'embedded');
    await writeFile(path, renderKubeconfig({ server: 'https://127.0.0.1:8443', caPem: 'CA', clientCertPem: 'CERT', clientKeyPem: 'KEY', namespace: 'team' }));
    expect(await loadKubeconfig(path)).toEqual({
      server: 'https://127.0.0.1:8443',
      caPem: 'CA',
      clientCertPem: 'CERT',
      clientKeyPem: 'KEY',
      namespace: 'team',
    });
  });

  it('reads certificate files relative to the kubeconfig, for the context asked for', async () => {
    await writeFile(join(dir, 'ca.crt'), 'FILE-CA');
    await writeFile(join(dir, 'me.crt'), 'FILE-CERT');
    await writeFile(join(dir, 'me.key'), 'FILE-KEY');
    const path = join(dir, 'files');
    await writeFile(
      path,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: 'https://cairn:6443', 'certificate-authority': 'ca.crt' } }],
        users: [{ name: 'u', user: { 'client-certificate': 'me.crt', 'client-key': join(dir, 'me.key') } }],
        contexts: [
          { name: 'other', context: { cluster: 'missing' } },
          { name: 'mine', context: { cluster: 'c', user: 'u' } },
        ],
        'current-context': 'other',
      }),
    );
    expect(await loadKubeconfig(path, 'mine')).toEqual({
      server: 'https://cairn:6443',
      caPem: 'FILE-CA',
      clientCertPem: 'FILE-CERT',
      clientKeyPem: 'FILE-KEY',
      namespace: 'default',
    });
    await expect(loadKubeconfig(path)).rejects.toThrow(/no cluster named "missing"/);
    await expect(loadKubeconfig(path, 'nope')).rejects.toThrow(/no context named "nope"/);
  });

  it('reads a bearer token or a token file, the TLS server name and skip-verify, as the delegation kubeconfigs give them', async () => {
    const path = join(dir, 'tokens');
    const cluster = { server: 'https://10.0.0.1:6443/', 'tls-server-name': 'kubernetes', 'insecure-skip-tls-verify': true };
    await writeFile(
      path,
      stringify({
        clusters: [{ name: 'c', cluster }],
        users: [
          { name: 'inline', user: { token: 'abc', tokenFile: 'ignored' } },
          { name: 'file', user: { tokenFile: 'sa/token' } },
        ],
        contexts: [
          { name: 'inline', context: { cluster: 'c', user: 'inline' } },
          { name: 'file', context: { cluster: 'c', user: 'file' } },
        ],
        'current-context': 'inline',
      }),
    );
    const common = { server: 'https://10.0.0.1:6443', tlsServerName: 'kubernetes', insecureSkipTlsVerify: true, namespace: 'default' };
    expect(await loadKubeconfig(path)).toEqual({ ...common, token: 'abc', tokenFile: join(dir, 'ignored') });
    expect(await loadKubeconfig(path, 'file')).toEqual({ ...common, tokenFile: join(dir, 'sa', 'token') });
  });
});
