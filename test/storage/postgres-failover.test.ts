/**
 * A failover behind a libpq multi-host URL: Cairn, given a primary and its streaming
 * standby with target_session_attrs=read-write, writes to the primary; a standby alone
 * is refused at start, naming it; a primary turned read-only is noticed (writes 503,
 * readyz failing) until it can write again; once the primary stops and the standby is promoted,
 * writes go on against it without a restart, and nothing acknowledged before is lost.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.js';
import { pipeline, startTestServer, type TestServer } from '../support/test-server.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/failover/pipelines';
const settleMs = 30_000;

describe('a multi-host URL across a failover', () => {
  let primary: PostgresCluster;
  let standby: PostgresCluster;
  let database: string;
  let server: TestServer | undefined;
  const url = (...clusters: PostgresCluster[]) =>
    `postgres://postgres@${clusters.map((cluster) => `127.0.0.1:${cluster.port}`).join(',')}/${database}?target_session_attrs=read-write&connect_timeout=2`;

  beforeAll(async () => {
    primary = await startPostgresCluster();
    database = new URL(await primary.createDatabase()).pathname.slice(1);
    standby = await startPostgresCluster({ standbyOf: primary });
  });
  afterAll(async () => {
    await server?.destroy();
    await standby?.destroy();
    await primary?.destroy();
  });

  it('refuses a standby given alone, saying it is in recovery', async () => {
    const alone = new PostgresDatabase({ connectionString: url(standby) });
    try {
      await expect(alone.ping()).rejects.toThrow(`127.0.0.1:${standby.port} is in recovery (a standby): its sessions are read-only`);
    } finally {
      await alone.close();
    }
  });

  it('skips a standby listed first and writes to the primary', async () => {
    const listed = new PostgresDatabase({ connectionString: url(standby, primary) });
    try {
      await listed.ping();
      const [row] = await listed.query('SELECT inet_server_port() AS port, pg_is_in_recovery() AS recovery', []);
      expect(row).toEqual({ port: primary.port, recovery: false });
    } finally {
      await listed.close();
    }
  });

  const acknowledged = new Map<string, string>();
  const create = async (name: string): Promise<number> => {
    const res = await server!.request('POST', pipelines, { body: pipeline(name) }).catch(() => undefined);
    if (res?.status === 201) acknowledged.set(name, res.json.metadata.resourceVersion);
    return res?.status ?? 0;
  };
  /** Waits until readyz answers `ready` (200) or not (500, as kube's healthz). */
  const readyz = async (ready: boolean): Promise<void> => {
    for (const until = Date.now() + settleMs; ((await server!.request('GET', '/readyz')).status === 200) !== ready;) {
      if (Date.now() > until) throw new Error(`readyz did not become ${ready ? 'ready' : 'unready'}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  it('notices a primary turned read-only while running: writes answered 503, readyz failing, until it can write again', { timeout: 60_000 }, async () => {
    server = await startTestServer({ backend: 'postgres', databaseUrl: url(primary, standby) });
    expect(await create('writable')).toBe(201);
    // What a demotion looks like to open sessions: every new transaction is read-only (25006 on a write).
    const setReadOnly = async (on: boolean) => {
      // A plain client: Cairn's would refuse the read-only server it is about to fix.
      const admin = new pg.Client({ connectionString: primary.url });
      await admin.connect();
      try {
        await admin.query(`ALTER SYSTEM SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
        await admin.query('SELECT pg_reload_conf()');
      } finally {
        await admin.end();
      }
    };
    await setReadOnly(true);
    try {
      for (const until = Date.now() + settleMs; (await create(`read-only-${Date.now()}`)) !== 503;) {
        if (Date.now() > until) throw new Error('writes to a read-only primary were not refused');
      }
      await readyz(false);
    } finally {
      await setReadOnly(false);
    }
    for (const until = Date.now() + settleMs; (await create(`writable-again-${Date.now()}`)) !== 201;) {
      if (Date.now() > until) throw new Error('writes did not resume once the primary could write');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await readyz(true);
  });

  it('writes on after the primary stops and the standby is promoted, without a restart', { timeout: 120_000 }, async () => {
    for (let i = 0; i < 5; i++) expect(await create(`before-${i}`)).toBe(201);

    await primary.stop();
    // Between the stop and the promotion no server takes writes: they are refused as unavailable, and readiness says so.
    expect(await create('between')).toBe(503);
    await readyz(false);
    await standby.promote();

    const deadline = Date.now() + settleMs;
    let status = 0;
    for (let i = 0; status !== 201; i++) {
      if (Date.now() > deadline) throw new Error(`writes did not resume on the promoted standby (last status ${status})`);
      status = await create(`after-${i}`);
      if (status !== 201) {
        expect(status).toBe(503);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    for (let i = 0; i < 5; i++) expect(await create(`more-${i}`)).toBe(201);
    await readyz(true);

    for (const [name, rv] of acknowledged) {
      const read = await server!.request('GET', `${pipelines}/${name}`);
      expect(read.status, `${name}: ${read.text}`).toBe(200);
      expect(read.json.metadata.resourceVersion).toBe(rv);
    }
    const listed = await server!.request('GET', pipelines);
    expect(listed.json.items.map((item: { metadata: { name: string } }) => item.metadata.name).sort()).toEqual([...acknowledged.keys()].sort());
  });
});
