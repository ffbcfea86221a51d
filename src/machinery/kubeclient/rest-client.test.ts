/**
 * The in-cluster client of the main API server: the ServiceAccount kubelet mounts, and the
 * Service's host and port.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serviceAccountDir } from './kubeconfig.js';
import { RestClient } from './rest-client.js';

describe('RestClient.inCluster', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-serviceaccount-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the ServiceAccount where kubelet mounts it, unless told another directory', () => {
    expect(serviceAccountDir).toBe('/var/run/secrets/kubernetes.io/serviceaccount');
  });

  it('talks HTTPS to the Service’s host and port, an IPv6 address in brackets', async () => {
    await writeFile(join(dir, 'token'), 'a-token\n');
    const v4 = RestClient.inCluster({ host: '10.96.0.1', port: '443' }, dir);
    const v6 = RestClient.inCluster({ host: 'fd00::1', port: '6443' }, dir);
    expect([v4.server, v6.server]).toEqual(['https://10.96.0.1:443', 'https://[fd00::1]:6443']);
    v4.close();
    v6.close();
  });

  it('fails without a token to read, as client-go does', () => {
    expect(() => RestClient.inCluster({ host: '10.96.0.1', port: '443' }, dir)).toThrow(/ENOENT.*token/);
  });
});
