/**
 * The audit log of a Cairn behind a real kube-apiserver's aggregator: a request made
 * through kube-apiserver as an impersonated user reaches Cairn with the front proxy's
 * certificate and the user in `X-Remote-*` headers, and Cairn's audit log names that
 * user, not the proxy.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startAggregatedCairn, type AggregatedCairn } from '../support/aggregated-cairn.js';
import { readAuditLog } from '../support/audit-log.js';
import { eventually } from '../support/eventually.js';
import { startKubeControlPlane, type KubeControlPlane } from '../support/kube-control-plane.js';
import { kubectlAvailable } from '../support/kubectl.js';

describe.runIf(kubectlAvailable)('the audit log of Cairn behind a real kube-apiserver (needs kubectl on PATH)', () => {
  let plane: KubeControlPlane;
  let cairn: AggregatedCairn;
  let dir: string;
  let log: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-audit-aggregated-'));
    log = join(dir, 'audit.log');
    await writeFile(join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources:\n  - group: cairn.dev\n');
    plane = await startKubeControlPlane(inject('goPrograms'));
    cairn = await startAggregatedCairn(plane, { args: [`--audit-policy-file=${join(dir, 'policy.yaml')}`, `--audit-log-path=${log}`] });
  }, 240_000);

  afterAll(async () => {
    await cairn?.stop();
    await plane?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('names the user kube-apiserver proxied for, with its groups, not the front proxy', async () => {
    const result = await plane.kubectl(['get', 'pipelines', '-n', 'default', '--as=alice', '--as-group=system:masters', '--as-group=auditors']);
    expect(result.code, result.stderr).toBe(0);
    let alice: Record<string, any>[] = [];
    await eventually('alice’s list in the audit log', 10_000, async () => {
      alice = (await readAuditLog(log)).filter((e) => e.user.username === 'alice' && e.verb === 'list' && e.stage === 'ResponseComplete');
      return alice.length > 0;
    });
    expect(alice[0]).toMatchObject({
      user: { username: 'alice', groups: expect.arrayContaining(['system:masters', 'auditors', 'system:authenticated']) },
      objectRef: { resource: 'pipelines', namespace: 'default', apiGroup: 'cairn.dev' },
      responseStatus: { code: 200 },
    });
    const users = new Set((await readAuditLog(log)).map((e) => e.user.username));
    expect([...users].filter((name) => plane.allowedNames.includes(name))).toEqual([]);
  });
});
