/**
 * The audit log of a Cairn behind a real kube-apiserver's aggregator: a request made
 * through kube-apiserver as an impersonated user reaches Cairn with the front proxy's
 * certificate and the user in `X-Remote-*` headers, and Cairn's audit log names that
 * user, not the proxy; so does the origin each write records for the object's history.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { startAggregatedCairn, type AggregatedCairn } from '../support/aggregated-cairn.js';
import { readAuditLog } from '../support/audit-log.js';
import { eventually } from '../support/eventually.js';
import { startKubeControlPlane, type KubeControlPlane } from '../support/kube-control-plane.js';
import { kubectlAvailable } from '../support/kubectl.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { pipeline } from '../support/test-server.js';

describe.runIf(kubectlAvailable)('the audit log of Cairn behind a real kube-apiserver (needs kubectl on PATH)', () => {
  let plane: KubeControlPlane;
  let cairn: AggregatedCairn;
  let dir: string;
  let log: string;
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await testDatabaseUrl();
    dir = await mkdtemp(join(tmpdir(), 'cairn-audit-aggregated-'));
    log = join(dir, 'audit.log');
    await writeFile(join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources:\n  - group: cairn.dev\n');
    plane = await startKubeControlPlane(inject('goPrograms'));
    cairn = await startAggregatedCairn(plane, { databaseUrl, args: [`--audit-policy-file=${join(dir, 'policy.yaml')}`, `--audit-log-path=${log}`] });
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

  it('records the user kube-apiserver proxied for, and kubectl’s manager, with each write of an object’s history', async () => {
    const manifest = join(dir, 'pipeline.json');
    await writeFile(manifest, JSON.stringify(pipeline('origins')));
    for (const [user, args] of [
      ['alice', ['create', '-f', manifest]],
      ['bob', ['annotate', 'pipeline', 'origins', 'reviewed=yes']],
      ['carol', ['delete', 'pipeline', 'origins']],
    ] as const) {
      const result = await plane.kubectl([...args, '-n', 'default', `--as=${user}`, '--as-group=system:masters']);
      expect(result.code, result.stderr).toBe(0);
    }
    const database = new PostgresDatabase({ connectionString: databaseUrl });
    try {
      const { rows } = await database.run((db) =>
        sql`SELECT type, operation, subresource, field_manager, username FROM cairn_events
            WHERE resource = 'pipelines.cairn.dev' AND namespace = 'default' AND name = 'origins' ORDER BY resource_version`.execute(db),
      );
      expect(rows).toEqual([
        { type: 'ADDED', operation: 'create', subresource: '', field_manager: 'kubectl-create', username: 'alice' },
        { type: 'MODIFIED', operation: 'patch', subresource: '', field_manager: 'kubectl-annotate', username: 'bob' },
        { type: 'DELETED', operation: 'delete', subresource: '', field_manager: '', username: 'carol' },
      ]);
    } finally {
      await database.close();
    }
  });
});
