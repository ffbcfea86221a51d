/**
 * The log appends section of `report.md` (issue 26 item 4): what an append to a capped
 * log costs, below its cap and at it, beside the append as it was before logs had a cap
 * (measured in the same run) and beside the previous run's figures.
 */
import type { BenchMeta } from './bench-results.js';

/** One row of bench/log-append-command.ts. */
export interface LogAppendRow {
  readonly row: string;
  readonly perSecond: number;
  /** The bench process's CPU time per append (on PGlite the database's too). */
  readonly cpuMicros: number;
  /** The same of the append before the caps, same run: the row's limit. */
  readonly beforeCapsCpuMicros: number;
  /** cpuMicros / beforeCapsCpuMicros: at most 1 is an append as cheap as before (with interleaved rounds, the median of the rounds' ratios). */
  readonly ratio: number;
  /** The lowest and highest of the rounds' ratios: the noise (runs before the rounds have none). */
  readonly ratioRange?: readonly [number, number];
}

/** One backend's run, with the rows of the run before it. */
export interface LogAppendRun {
  readonly meta: BenchMeta & {
    readonly seconds: number;
    /** How many interleaved rounds the seconds were split into, and the 1-minute load average over them (runs before the rounds have neither). */
    readonly rounds?: number;
    readonly roundLoadAverage?: { readonly min: number; readonly max: number };
  };
  readonly rows: readonly LogAppendRow[];
  readonly previous?: { readonly commit: string; readonly rows: readonly LogAppendRow[] };
}

/** The `logAppends` section of `results.json`: the last run of each backend. */
export type LogAppendResults = Partial<Record<'postgres' | 'pglite', LogAppendRun>>;

const backendNames = { postgres: 'PostgreSQL', pglite: 'PGlite' } as const;

/** The section, or nothing before a run. */
export function renderLogAppends(results: LogAppendResults | undefined): string[] {
  if (!results || Object.keys(results).length === 0) return [];
  const lines = [
    '## Log appends (issue 26 item 4)',
    '',
    '`npx tsx bench/log-append-command.ts [--database-url URL] --out bench`: one log takes appends of 10 lines of 100 bytes, one after another. ' +
      'The limit is the append as it was before logs had a cap, in the same run: the object’s row locked and the lines inserted, no size kept. ' +
      'The variants, the limit among them, take turns in short interleaved rounds, so the load of a shared machine weighs on them alike; ' +
      'a row’s ratio is the median of its rounds’ ratios, with their range beside it. ' +
      'The figure is the bench process’s CPU time per append (on PGlite the database’s too, so a busy machine skews it less than the rate); ' +
      'the ratio is Cairn’s over the limit’s, at most 1 when an append costs no more than before. On PostgreSQL the server’s CPU is not in it: the rate shows what the server spends.',
    '',
  ];
  for (const backend of ['postgres', 'pglite'] as const) {
    const run = results[backend];
    if (!run) continue;
    const { meta } = run;
    lines.push(
      `### ${backendNames[backend]}`,
      '',
      `Commit \`${meta.commit}\`${meta.dirty ? ' (with uncommitted changes)' : ''}, ${meta.date}, ${meta.seconds} s a row${meta.rounds ? ` in ${meta.rounds} interleaved rounds` : ''}, on ${meta.cpus} × ${meta.cpuModel}${meta.postgres ? `, ${meta.postgres}` : ''}; ` +
        `1-minute load average ${meta.loadAverage.start} at the start, ${meta.loadAverage.end} at the end${meta.roundLoadAverage ? ` (${meta.roundLoadAverage.min}–${meta.roundLoadAverage.max} over the rounds)` : ''}.`,
      '',
      `| append | appends/s | CPU per append | before the caps, same run | ratio | previous run${run.previous ? ` (\`${run.previous.commit}\`)` : ''} |`,
      '| --- | --- | --- | --- | --- | --- |',
      ...run.rows.map((r) => {
        const previous = run.previous?.rows.find((p) => p.row === r.row);
        const ratio = `${r.ratio.toFixed(2)}${r.ratioRange ? ` (rounds ${r.ratioRange[0].toFixed(2)}–${r.ratioRange[1].toFixed(2)})` : ''}`;
        return `| ${r.row} | ${r.perSecond.toLocaleString('en-US')} | ${r.cpuMicros.toLocaleString('en-US')} µs | ${r.beforeCapsCpuMicros.toLocaleString('en-US')} µs | ${ratio} | ${previous ? `${previous.perSecond.toLocaleString('en-US')}/s, ${previous.cpuMicros.toLocaleString('en-US')} µs (ratio ${previous.ratio.toFixed(2)})` : '—'} |`;
      }),
      '',
    );
  }
  return lines;
}
