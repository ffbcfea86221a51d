/**
 * `npm run migrate` (the `migrate` command) brings a database up to date and exits.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { expect, it } from 'vitest';
import { allMigrationsLogged } from '../support/migration-files.js';
import { testDatabaseUrl } from '../support/test-database.js';

const root = join(import.meta.dirname, '..', '..');

it('migrates a PostgreSQL database with the migrate command, idempotently', async () => {
  const url = await testDatabaseUrl();
  const dataDir = await mkdtemp(join(tmpdir(), 'cairn-migrate-'));
  const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };
  const run = () =>
    promisify(execFile)(join(root, 'node_modules/.bin/tsx'), ['src/server/main.ts', 'migrate', '--data-dir', dataDir, '--database-url', url], {
      cwd: root,
      env,
    });
  try {
    expect((await run()).stdout).toContain(await allMigrationsLogged());
    expect((await run()).stdout).toContain('up to date');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const tables = await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'cairn_%' ORDER BY 1");
    await client.end();
    expect(tables.rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining(['cairn_compaction', 'cairn_events', 'cairn_log_lines', 'cairn_objects', 'cairn_resource_version']),
    );
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
