/**
 * The test control plane itself: a real etcd and kube-apiserver 1.34, driven by the
 * machine's real kubectl, accept an APIService for `v1.cairn.dev` backed by an
 * ExternalName Service, as the aggregated deployment registers Cairn.
 */
import { execFile } from 'node:child_process';
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { controlPlaneKubectl } from '../support/kube-control-plane.js';
import { kubectlAvailable, kubectlOnPath, type RunResult } from '../support/kubectl.js';
import { sharedKubeControlPlane } from '../support/shared-control-plane.js';

/** PEM as kube-apiserver re-encodes it: LF line ends (node-forge writes CRLF). */
const lf = (pem: string): string => pem.replaceAll('\r\n', '\n').trim();

/** Where the APIService says Cairn listens (nothing does in this test). */
const CAIRN_PORT = 18443;

/** The kubectl in skew with kube-apiserver 1.34 (kubectl.1.33). */
const kubectl133 = controlPlaneKubectl();

describe.runIf(kubectlAvailable)('test control plane: etcd + kube-apiserver (needs kubectl on PATH)', () => {
  const plane = sharedKubeControlPlane();

  /** Runs kubectl and fails the test, showing its output and the servers' logs, unless it exits 0. */
  const kubectlOk = async (binary: string, ...args: string[]): Promise<RunResult> => {
    const result = await plane().kubectl(args, binary);
    if (result.code !== 0) {
      expect.fail(`kubectl ${args.join(' ')} exited ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}\n${await plane().logTail()}`);
    }
    return result;
  };

  // The dispatcher on PATH has no kubectl.1.34 and runs itself (1.32, warning about the skew); kubectl.1.33 is in skew.
  for (const binary of [kubectlOnPath ?? 'kubectl', kubectl133]) {
    describe(basename(binary), () => {
      it('reports server version 1.34', async () => {
        const version = JSON.parse((await kubectlOk(binary, 'version', '-o', 'json')).stdout);
        expect(version.serverVersion).toMatchObject({ major: '1', minor: '34', gitVersion: inject('goPrograms').kubernetesVersion });
        expect(version.serverVersion.gitVersion).toMatch(/^v1\.34\.\d+$/);
      });

      it('lists namespace default', async () => {
        const names = (await kubectlOk(binary, 'get', 'namespaces', '-o', 'name')).stdout.split('\n');
        expect(names).toContain('namespace/default');
      });
    });
  }

  it('publishes the front-proxy trust in kube-system/extension-apiserver-authentication', async () => {
    const configMap = JSON.parse(
      (await kubectlOk(kubectl133, '-n', 'kube-system', 'get', 'configmap', 'extension-apiserver-authentication', '-o', 'json')).stdout,
    );
    expect(configMap.data['requestheader-client-ca-file']).toContain(lf(plane().frontProxyCaPem));
    expect(JSON.parse(configMap.data['requestheader-allowed-names'])).toEqual(['front-proxy-client']);
    expect(JSON.parse(configMap.data['requestheader-username-headers'])).toEqual(['X-Remote-User']);
    expect(JSON.parse(configMap.data['requestheader-uid-headers'])).toEqual(['X-Remote-Uid']);
    expect(configMap.data['client-ca-file']).toContain(lf(plane().clientCaPem));
  });

  it('accepts an APIService for v1.cairn.dev backed by an ExternalName Service', async () => {
    const manifests = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cairn-system' } },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'cairn-apiserver', namespace: 'cairn-system' },
        spec: { type: 'ExternalName', externalName: 'localhost' },
      },
      {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: 'v1.cairn.dev' },
        spec: {
          group: 'cairn.dev',
          version: 'v1',
          groupPriorityMinimum: 1000,
          versionPriority: 15,
          service: { name: 'cairn-apiserver', namespace: 'cairn-system', port: CAIRN_PORT },
        },
      },
    ];
    const file = join(plane().directory, 'cairn-apiservice.yaml');
    await writeFile(file, manifests.map((m) => stringify(m)).join('---\n'));
    const applied = await kubectlOk(kubectl133, 'apply', '-f', file);
    expect(applied.stdout).toContain('apiservice.apiregistration.k8s.io/v1.cairn.dev created');

    const apiService = JSON.parse((await kubectlOk(kubectl133, 'get', 'apiservice', 'v1.cairn.dev', '-o', 'json')).stdout);
    expect(apiService.spec.service).toEqual({ name: 'cairn-apiserver', namespace: 'cairn-system', port: CAIRN_PORT });

    // The aggregator's availability controller picks it up; nothing serves it yet, so it is not Available.
    let available: { status?: string; reason?: string } | undefined;
    const deadline = Date.now() + 30_000;
    while (available === undefined && Date.now() < deadline) {
      const current = JSON.parse((await kubectlOk(kubectl133, 'get', 'apiservice', 'v1.cairn.dev', '-o', 'json')).stdout);
      available = (current.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Available');
      if (available === undefined) await sleep(500);
    }
    expect(available, 'the Available condition of apiservice/v1.cairn.dev').toMatchObject({ status: 'False' });
  });

  it('accepts every manifest in apiservice/ as written, with the Secret and caBundle npm run certs adds', async () => {
    const root = join(import.meta.dirname, '..', '..');
    const dir = join(plane().directory, 'apiservice');
    await cp(join(root, 'apiservice'), dir, { recursive: true, filter: (source) => !source.startsWith(join(root, 'apiservice', 'certs')) });
    const script = (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.certs;
    const [command, ...scriptArgs] = script.split(' ');
    await promisify(execFile)(
      join(root, 'node_modules/.bin', command),
      [...scriptArgs, '--service', 'cairn-apiserver', '--namespace', 'cairn-system', '--manifests', dir],
      {
        cwd: root,
      },
    );
    const files = (await readdir(dir)).filter((name) => name.endsWith('.yaml')).sort();
    // kubectl applies a directory in file-name order: the Namespace first.
    const applied = await kubectlOk(kubectl133, 'apply', '-f', dir);
    const lines = applied.stdout.trim().split('\n');
    expect(
      lines.every((line) => / (created|configured|unchanged)$/.test(line)),
      applied.stdout,
    ).toBe(true);
    for (const expected of [
      'namespace/cairn-system',
      'serviceaccount/cairn-apiserver',
      'deployment.apps/cairn-apiserver',
      'service/cairn-apiserver',
      'secret/cairn-serving-cert',
      // One APIService per served version.
      ...cairnGroup.versions.map((version) => `apiservice.apiregistration.k8s.io/${version}.${cairnGroup.name}`),
    ]) {
      expect(applied.stdout, `${expected} among ${files.join(', ')}`).toContain(expected);
    }
    // What was applied is what the server holds: every object of every file can be read back.
    const listed = await kubectlOk(kubectl133, 'get', '-f', dir, '-o', 'name');
    expect(listed.stdout.trim().split('\n')).toHaveLength(lines.length);
  });
});
