/**
 * `npx tsx bench/log-append-command.ts [--seconds 10] [--database-url URL] [--out DIR]`: how fast
 * one object's log takes appends (each 10 lines of 100 bytes, one after another, as a
 * runner streams a step's output), on PGlite in a data directory or on PostgreSQL.
 * Four rows: no cap at all, a log far below its byte cap, and a log at a 64 KiB and at
 * the default 10 MiB cap (every append then removes as many of the oldest lines as it
 * adds, in its own transaction), after a second of appends that warms the process up.
 * Figures are appends per second and CPU time per append; compare runs on one machine.
 * Each row's limit is the append as it was before logs had a cap, measured in the same
 * run: the object's row locked and the lines inserted into a table of the lines alone
 * (migration 0003's), no size kept. With `--out`, the figures go into the `logAppends`
 * part of `results.json` and `report.md` there, beside the previous run's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type { Database } from '../src/storage/database.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { PGliteDatabase } from '../src/storage/pglite-database.js';
import { PostgresDatabase } from '../src/storage/postgres-database.js';
import { SqlObjectStore } from '../src/storage/sql-object-store.js';
import type { LogAppendRow } from './log-append-report.js';
import { previousResults, writeResults } from './results-file.js';
import { postgresVersion, runMeta, runStart } from './run-meta.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, 'database-url': { type: 'string' }, out: { type: 'string' } } });
const seconds = Number(values.seconds);
const lines = Array.from({ length: 10 }, (_, i) => `${String(i).padStart(3, '0')} ${'x'.repeat(96)}`);
const fieldsOf = () => ({});

/**
 * Appends to one new object's log for `seconds` (once it holds `logMaxBytes` when
 * `full`); returns appends per second, and this process's CPU time per append (on
 * PGlite, which runs in it, the database's too: a figure a busy machine skews less).
 */
async function appendsPerSecond(
  database: Database,
  logMaxBytes: number,
  full: boolean,
  name: string,
  forSeconds = seconds,
): Promise<{ rate: number; cpuMicros: number }> {
  const store = await SqlObjectStore.open(database, { logMaxBytes });
  try {
    const things = store.forResource('log-append.bench', fieldsOf);
    const key = { namespace: 'bench', name };
    await things.create(key, { apiVersion: 'bench/v1', kind: 'Thing', metadata: { name, namespace: 'bench', uid: `uid-${name}` } });
    // Up to the cap first, untimed, a thousand lines an append, so the timed appends all trim.
    const fill = Array.from({ length: 100 }, () => lines).flat();
    if (full) for (let written = 0; written < logMaxBytes; written += fill.length * 101) await things.logs.append(key, fill, () => 'step');
    let appends = 0;
    const end = performance.now() + forSeconds * 1000;
    const start = performance.now();
    const cpu = process.cpuUsage();
    while (performance.now() < end) {
      await things.logs.append(key, lines, () => 'step');
      appends++;
    }
    const used = process.cpuUsage(cpu);
    return { rate: appends / ((performance.now() - start) / 1000), cpuMicros: (used.user + used.system) / appends };
  } finally {
    await store.close();
  }
}

/**
 * The append before logs had a cap, for `seconds`: in one transaction the object's row
 * locked (as storage's append locks it) and the lines inserted into a table shaped as
 * migration 0003 made `cairn_log_lines`, with its two indexes and no size kept.
 */
async function appendsBeforeCaps(database: Database): Promise<{ rate: number; cpuMicros: number }> {
  await database.script(`CREATE TABLE bench_log_lines (seq bigserial PRIMARY KEY, uid text NOT NULL, stream text NOT NULL,
      appended_at timestamptz NOT NULL DEFAULT clock_timestamp(), line text NOT NULL);
    CREATE INDEX bench_log_lines_uid_seq ON bench_log_lines (uid, seq);
    CREATE INDEX bench_log_lines_uid_stream_seq ON bench_log_lines (uid, stream, seq)`);
  const store = await SqlObjectStore.open(database, {});
  try {
    const key = { namespace: 'bench', name: 'before-caps' };
    await store.forResource('log-append.bench', fieldsOf).create(key, { apiVersion: 'bench/v1', kind: 'Thing', metadata: { ...key, uid: 'uid-before-caps' } });
    // As the append before the caps: one INSERT of every line, three parameters each.
    const rows = sql.join(lines.map((line) => sql`(${'uid-before-caps'}, ${'step'}, ${line})`));
    let appends = 0;
    const end = performance.now() + seconds * 1000;
    const start = performance.now();
    const cpu = process.cpuUsage();
    while (performance.now() < end) {
      await database.transaction(async (trx) => {
        await sql`SELECT object FROM cairn_objects WHERE resource = 'log-append.bench' AND namespace = 'bench' AND name = 'before-caps' FOR UPDATE`.execute(
          trx,
        );
        await sql`INSERT INTO bench_log_lines (uid, stream, line) VALUES ${rows}`.execute(trx);
      });
      appends++;
    }
    const used = process.cpuUsage(cpu);
    return { rate: appends / ((performance.now() - start) / 1000), cpuMicros: (used.user + used.system) / appends };
  } finally {
    await store.close();
  }
}

const dataDir = values['database-url'] ? undefined : await mkdtemp(join(tmpdir(), 'cairn-log-append-'));
const database: Database = dataDir ? await PGliteDatabase.open(dataDir) : new PostgresDatabase({ connectionString: values['database-url']! });
try {
  const started = runStart();
  await migrateToLatest(database);
  await appendsPerSecond(database, 0, false, 'warm-up', 1);
  const before = await appendsBeforeCaps(database);
  const measured: [string, { rate: number; cpuMicros: number }][] = [
    ['no cap', await appendsPerSecond(database, 0, false, 'no-cap')],
    ['below a 10 MiB cap', await appendsPerSecond(database, 10 * 1024 * 1024, false, 'below-cap')],
    ['at a 64 KiB cap', await appendsPerSecond(database, 64 * 1024, true, 'at-cap')],
    ['at a 10 MiB cap', await appendsPerSecond(database, 10 * 1024 * 1024, true, 'at-10mib-cap')],
  ];
  console.log(
    `${database.backend} log appends (10 lines of 100 B), as before the caps: ${before.rate.toFixed(0)}/s, ${before.cpuMicros.toFixed(0)} µs of CPU each`,
  );
  for (const [row, { rate, cpuMicros }] of measured)
    console.log(`${database.backend} log appends (10 lines of 100 B), ${row}: ${rate.toFixed(0)}/s, ${cpuMicros.toFixed(0)} µs of CPU each`);
  if (values.out !== undefined) {
    const rows: LogAppendRow[] = measured.map(([row, { rate, cpuMicros }]) => ({
      row,
      perSecond: Number(rate.toFixed(0)),
      cpuMicros: Number(cpuMicros.toFixed(0)),
      beforeCapsCpuMicros: Number(before.cpuMicros.toFixed(0)),
      ratio: Number((cpuMicros / before.cpuMicros).toFixed(2)),
    }));
    const previous = await previousResults(values.out);
    const backend = database.backend;
    const meta = { ...runMeta(started, 'full', 1, backend === 'postgres' ? await postgresVersion(values['database-url']!) : undefined), seconds };
    const earlier = previous.logAppends?.[backend];
    await writeResults(values.out, {
      ...previous,
      logAppends: { ...previous.logAppends, [backend]: { meta, rows, ...(earlier && { previous: { commit: earlier.meta.commit, rows: earlier.rows } }) } },
    });
  }
} finally {
  await database.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}
