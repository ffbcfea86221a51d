/**
 * `npx tsx bench/log-append-command.ts [--seconds 10] [--rounds 10] [--database-url URL] [--out DIR]`:
 * how fast one object's log takes appends (each 10 lines of 100 bytes, one after another,
 * as a runner streams a step's output), on PGlite in a data directory or on PostgreSQL.
 * Four rows: no cap at all, a log far below its byte cap, and a log at a 64 KiB and at
 * the default 10 MiB cap (every append then removes as many of the oldest lines as it
 * adds, in its own transaction). Each row's limit is the append as it was before logs
 * had a cap: the object's row locked and the lines inserted into a table of the lines
 * alone (migration 0003's), no size kept.
 *
 * On a shared machine the load changes from one second to the next, so the variants are
 * interleaved: `--rounds` rounds, each giving every variant (the limit among them) an
 * equal slice of `--seconds`, in an order that turns from round to round. Each round's
 * ratio is a row's CPU time per append over the limit's in that round; a row reports the
 * median of its rounds' ratios with their range, which shows the noise. Figures are
 * appends per second and CPU time per append (on PGlite the database's too); compare runs
 * on one machine. With `--out`, the figures go into the `logAppends` part of
 * `results.json` and `report.md` there, beside the previous run's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type { Database } from '../src/storage/database.js';
import type { ResourceStorage } from '../src/storage/interfaces.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { PGliteDatabase } from '../src/storage/pglite-database.js';
import { PostgresDatabase } from '../src/storage/postgres-database.js';
import { SqlObjectStore } from '../src/storage/sql-object-store.js';
import type { LogAppendRow } from './log-append-report.js';
import { previousResults, writeResults } from './results-file.js';
import { postgresVersion, runMeta, runStart } from './run-meta.js';
import { medianOf } from './stats.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '10' },
    'database-url': { type: 'string' },
    out: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const lines = Array.from({ length: 10 }, (_, i) => `${String(i).padStart(3, '0')} ${'x'.repeat(96)}`);
const fieldsOf = () => ({});

/** One variant's appends, measured a slice at a time. */
interface Variant {
  readonly row: string;
  /** Opens what the variant appends through (untimed); returns its append and what closes it. */
  readonly open: () => Promise<{ append: () => Promise<unknown>; close: () => Promise<void> }>;
}

/** What one slice measured: appends per second, and this process's CPU time per append. */
interface Slice {
  readonly rate: number;
  readonly cpuMicros: number;
}

/** Runs `append` one after another for `forSeconds`. */
async function slice(append: () => Promise<unknown>, forSeconds: number): Promise<Slice> {
  let appends = 0;
  const start = performance.now();
  const end = start + forSeconds * 1000;
  const cpu = process.cpuUsage();
  while (performance.now() < end) {
    await append();
    appends++;
  }
  const used = process.cpuUsage(cpu);
  return { rate: appends / ((performance.now() - start) / 1000), cpuMicros: (used.user + used.system) / appends };
}

/**
 * Cairn's append to the log of a new object, through a store whose cap is `logMaxBytes`:
 * the store is opened for each slice (a store open beside the others would add its
 * background work to theirs), the object and its log stay. When `full`, the log is first
 * filled to its cap, untimed, a thousand lines an append, so the timed appends all trim.
 */
function cairnAppends(database: Database, row: string, logMaxBytes: number, full: boolean, name: string): Variant {
  const key = { namespace: 'bench', name };
  let created = false;
  return {
    row,
    open: async () => {
      const store = await SqlObjectStore.open(database, { logMaxBytes });
      const things: ResourceStorage = store.forResource('log-append.bench', fieldsOf);
      if (!created) {
        await things.create(key, { apiVersion: 'bench/v1', kind: 'Thing', metadata: { ...key, uid: `uid-${name}` } });
        const fill = Array.from({ length: 100 }, () => lines).flat();
        if (full) for (let written = 0; written < logMaxBytes; written += fill.length * 101) await things.logs.append(key, fill, () => 'step');
        created = true;
      }
      return { append: () => things.logs.append(key, lines, () => 'step'), close: () => store.close() };
    },
  };
}

/**
 * The append before logs had a cap: in one transaction the object's row locked (as
 * storage's append locks it) and the lines inserted into a table shaped as migration
 * 0003 made `cairn_log_lines`, with its two indexes and no size kept.
 */
async function appendsBeforeCaps(database: Database): Promise<Variant> {
  await database.script(`CREATE TABLE bench_log_lines (seq bigserial PRIMARY KEY, uid text NOT NULL, stream text NOT NULL,
      appended_at timestamptz NOT NULL DEFAULT clock_timestamp(), line text NOT NULL);
    CREATE INDEX bench_log_lines_uid_seq ON bench_log_lines (uid, seq);
    CREATE INDEX bench_log_lines_uid_stream_seq ON bench_log_lines (uid, stream, seq)`);
  const key = { namespace: 'bench', name: 'before-caps' };
  const store = await SqlObjectStore.open(database, {});
  try {
    await store.forResource('log-append.bench', fieldsOf).create(key, { apiVersion: 'bench/v1', kind: 'Thing', metadata: { ...key, uid: 'uid-before-caps' } });
  } finally {
    await store.close();
  }
  // As the append before the caps: one INSERT of every line, three parameters each.
  const rows = sql.join(lines.map((line) => sql`(${'uid-before-caps'}, ${'step'}, ${line})`));
  const append = () =>
    database.transaction(async (trx) => {
      await sql`SELECT object FROM cairn_objects WHERE resource = 'log-append.bench' AND namespace = 'bench' AND name = 'before-caps' FOR UPDATE`.execute(trx);
      await sql`INSERT INTO bench_log_lines (uid, stream, line) VALUES ${rows}`.execute(trx);
    });
  return { row: 'before the caps', open: async () => ({ append, close: async () => {} }) };
}

const dataDir = values['database-url'] ? undefined : await mkdtemp(join(tmpdir(), 'cairn-log-append-'));
const database: Database = dataDir ? await PGliteDatabase.open(dataDir) : new PostgresDatabase({ connectionString: values['database-url']! });
try {
  const started = runStart();
  await migrateToLatest(database);
  const before = await appendsBeforeCaps(database);
  const variants = [
    before,
    cairnAppends(database, 'no cap', 0, false, 'no-cap'),
    cairnAppends(database, 'below a 10 MiB cap', 10 * 1024 * 1024, false, 'below-cap'),
    cairnAppends(database, 'at a 64 KiB cap', 64 * 1024, true, 'at-cap'),
    cairnAppends(database, 'at a 10 MiB cap', 10 * 1024 * 1024, true, 'at-10mib-cap'),
  ];
  // A second of each, untimed, warms the process and the database up (and fills the full logs).
  for (const variant of variants) {
    const { append, close } = await variant.open();
    await slice(append, 1);
    await close();
  }
  const slices = new Map<Variant, Slice[]>(variants.map((v) => [v, []]));
  const loads: number[] = [];
  for (let round = 0; round < rounds; round++) {
    loads.push(loadavg()[0]);
    for (let i = 0; i < variants.length; i++) {
      const variant = variants[(round + i) % variants.length];
      const { append, close } = await variant.open();
      slices.get(variant)!.push(await slice(append, seconds / rounds));
      await close();
    }
  }
  const limit = slices.get(before)!;
  const measured = variants.slice(1).map((variant) => {
    const own = slices.get(variant)!;
    const ratios = own.map((s, round) => s.cpuMicros / limit[round].cpuMicros);
    return { variant, rate: medianOf(own.map((s) => s.rate)), cpuMicros: medianOf(own.map((s) => s.cpuMicros)), ratio: medianOf(ratios), ratios };
  });
  const beforeCpu = medianOf(limit.map((s) => s.cpuMicros));
  const loadText = `1-minute load average ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} over the rounds`;
  console.log(
    `${database.backend} log appends (10 lines of 100 B), ${rounds} interleaved rounds of ${seconds / rounds} s each, ${loadText}; ` +
      `as before the caps: ${medianOf(limit.map((s) => s.rate)).toFixed(0)}/s, ${beforeCpu.toFixed(0)} µs of CPU each`,
  );
  for (const { variant, rate, cpuMicros, ratio, ratios } of measured)
    console.log(
      `${database.backend} log appends (10 lines of 100 B), ${variant.row}: ${rate.toFixed(0)}/s, ${cpuMicros.toFixed(0)} µs of CPU each, ` +
        `ratio ${ratio.toFixed(2)} (rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
    );
  if (values.out !== undefined) {
    const rows: LogAppendRow[] = measured.map(({ variant, rate, cpuMicros, ratio, ratios }) => ({
      row: variant.row,
      perSecond: Number(rate.toFixed(0)),
      cpuMicros: Number(cpuMicros.toFixed(0)),
      beforeCapsCpuMicros: Number(beforeCpu.toFixed(0)),
      ratio: Number(ratio.toFixed(2)),
      ratioRange: [Number(Math.min(...ratios).toFixed(2)), Number(Math.max(...ratios).toFixed(2))],
    }));
    const previous = await previousResults(values.out);
    const backend = database.backend;
    const meta = {
      ...runMeta(started, 'full', 1, backend === 'postgres' ? await postgresVersion(values['database-url']!) : undefined),
      seconds,
      rounds,
      roundLoadAverage: { min: Number(Math.min(...loads).toFixed(2)), max: Number(Math.max(...loads).toFixed(2)) },
    };
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
