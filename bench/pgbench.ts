/**
 * The creates row's limit on PostgreSQL: pgbench inserting one ~1 KB JSONB row per
 * transaction (autocommit), on the bench's throwaway cluster.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';

/** The ~1 KB JSON document each pgbench transaction inserts. */
function document(): string {
  const steps = Array.from({ length: 10 }, (_, i) => ({ name: `step-${i}`, image: 'golang:1.23-alpine', command: ['sh', '-c', `make target-${i}`] }));
  const doc = { kind: 'Pipeline', metadata: { name: 'pgbench', labels: { team: 'payments', tier: 'backend' } }, spec: { replicas: 2, steps } };
  return JSON.stringify(doc);
}

/** A database holding pgbench's table, and the script that inserts into it. */
export interface PgbenchTarget {
  readonly url: string;
  readonly scriptFile: string;
}

/** Creates pgbench's table in the (empty) database at `url` and writes its script under `workDir`. */
export async function preparePgbench(url: string, workDir: string): Promise<PgbenchTarget> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE TABLE bench_rows (id bigserial PRIMARY KEY, doc jsonb NOT NULL)');
  } finally {
    await client.end();
  }
  const scriptFile = join(workDir, 'pgbench-insert.sql');
  await writeFile(scriptFile, `INSERT INTO bench_rows (doc) VALUES ('${document().replaceAll("'", "''")}');\n`);
  return { url, scriptFile };
}

/** Runs pgbench with `clients` clients for `seconds` and returns its transactions per second. */
export async function runPgbench(target: PgbenchTarget, clients: number, seconds: number): Promise<number> {
  const url = new URL(target.url);
  const args = ['-n', '-c', String(clients), '-j', '2', '-T', String(seconds), '-f', target.scriptFile];
  args.push('-h', url.hostname, '-p', url.port, '-U', decodeURIComponent(url.username), decodeURIComponent(url.pathname.slice(1)));
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn('pgbench', args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: (seconds + 60) * 1000 });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    child.once('error', (error) => reject(new Error(`cannot run pgbench (is it on PATH?): ${error.message}`)));
    child.once('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`pgbench failed (exit code ${String(code)}):\n${text}`))));
  });
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(output);
  if (!tps) throw new Error(`no tps in pgbench's output:\n${output}`);
  return Number(tps[1]);
}
