import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PostgresClusterError, startPostgresCluster } from './postgres-cluster.js';
import type { PostgresCluster } from './postgres-cluster.js';
import { testDatabaseUrl } from './test-database.js';

/** Runs one query on a fresh connection and closes it. */
async function query<Row extends pg.QueryResultRow>(url: string, sql: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** Live (non-zombie) processes whose command line mentions `text`, read from /proc. */
function liveProcessesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(text) && !isZombie(Number(entry))) pids.push(Number(entry));
    } catch {
      // The process exited while we looked.
    }
  }
  return pids;
}

/** Exited postgres processes are reparented to PID 1, which may never reap them. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

describe('startPostgresCluster', () => {
  let cluster: PostgresCluster;
  let databaseUrl: string;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
  });

  afterAll(async () => {
    await cluster?.destroy();
  });

  it('serves PostgreSQL 15 on 127.0.0.1 and creates a fresh database per call', async () => {
    expect(cluster.url).toBe(`postgres://postgres@127.0.0.1:${cluster.port}/postgres`);
    databaseUrl = await cluster.createDatabase();
    const otherUrl = await cluster.createDatabase();
    expect(otherUrl).not.toBe(databaseUrl);

    const [row] = await query<{ version: string; db: string }>(databaseUrl, 'select version() as version, current_database() as db');
    expect(row?.version).toMatch(/^PostgreSQL 15\./);
    expect(`${cluster.url.replace(/\/postgres$/, '')}/${row?.db}`).toBe(databaseUrl);
  });

  it('runs with fsync on and room for 200 connections', async () => {
    const rows = await query<{ name: string; setting: string }>(
      cluster.url,
      "select name, setting from pg_settings where name in ('fsync', 'max_connections') order by name",
    );
    expect(rows).toEqual([
      { name: 'fsync', setting: 'on' },
      { name: 'max_connections', setting: '200' },
    ]);
  });

  it('refuses connections while stopped and keeps its data across a restart', async () => {
    await query(databaseUrl, "create table survivors (name text); insert into survivors values ('kept')");

    await cluster.stop();
    await expect(query(databaseUrl, 'select 1')).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    await cluster.start();
    const rows = await query<{ name: string }>(databaseUrl, 'select name from survivors');
    expect(rows).toEqual([{ name: 'kept' }]);
  });

  it('destroy stops the server and removes its directory', async () => {
    const postmasterPid = Number(readFileSync(join(cluster.dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(liveProcessesMentioning(cluster.dataDirectory)).toContain(postmasterPid);

    await cluster.destroy();

    expect(existsSync(cluster.directory)).toBe(false);
    expect(isZombie(postmasterPid)).toBe(true);
    expect(liveProcessesMentioning(cluster.dataDirectory)).toEqual([]);
    await expect(query(cluster.url, 'select 1')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe('startPostgresCluster on a port already in use', () => {
  let blocker: Server;
  let port: number;

  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    port = typeof address === 'object' && address !== null ? address.port : 0;
  });

  afterAll(async () => {
    await new Promise((resolve) => blocker.close(resolve));
  });

  it('fails with the postgres log in the error and leaves nothing behind', async () => {
    const error: unknown = await startPostgresCluster({ port }).then(
      async (unexpected) => {
        await unexpected.destroy();
        return undefined;
      },
      (reason: unknown) => reason,
    );

    expect(error).toBeInstanceOf(PostgresClusterError);
    const failure = error as PostgresClusterError;
    expect(failure.message).toContain(`127.0.0.1:${port}`);
    expect(failure.logTail).toMatch(/could not bind IPv4 address "127\.0\.0\.1"/);
    expect(failure.message).toContain(failure.logTail);
    expect(existsSync(failure.directory)).toBe(false);
    expect(liveProcessesMentioning(failure.directory)).toEqual([]);
  });
});

describe('testDatabaseUrl', () => {
  it('gives each call its own empty database on the run-wide server', async () => {
    const serverHost = new URL(inject('postgresUrl')).host;
    const first = await testDatabaseUrl();
    const second = await testDatabaseUrl();

    expect(new URL(first).host).toBe(serverHost);
    expect(second).not.toBe(first);
    await query(first, 'create table only_in_first (id int)');
    const tables = await query<{ count: string }>(second, "select count(*) as count from pg_tables where schemaname = 'public'");
    expect(tables).toEqual([{ count: '0' }]);
  });
});
