/** The Markdown report: the table of every row, its notes, and the watch latency charts. */
import { formatMs, latencyChart } from './latency-chart.js';
import type { BenchResults, ResultsDocument } from './bench-results.js';
import type { Figure, RowResult } from './results.js';
import type { Backend } from './rows.js';
import { renderFaults } from './faults-report.js';
import { renderHistory } from './history-report.js';
import { renderLogAppends } from './log-append-report.js';
import { renderScale } from './scale-report.js';

const backendNames: Record<Backend, string> = { postgres: 'PostgreSQL', pglite: 'PGlite' };

/** A value in its unit: `6,429 tps`, `12.3 ms`, `84.2 MiB`, `3.41 s`. */
function value(v: number, unit: string): string {
  if (unit === 'ms') return `${formatMs(v)} ms`;
  if (unit === 'MiB') return `${v.toFixed(1)} MiB`;
  if (unit === 's') return `${v.toFixed(2)} s`;
  return `${Math.round(v).toLocaleString('en-US')} ${unit}`;
}

const figure = (f: Figure): string => `${value(f.median, f.unit)} (min ${value(f.min, f.unit)})`;

function cairnCell(row: RowResult): string {
  if (!row.cairn) return `failed: ${(row.error ?? '').slice(0, 80).replaceAll('|', '/')}`;
  return row.secondary ? `${figure(row.cairn)}; ${row.secondary.label} ${figure(row.secondary)}` : figure(row.cairn);
}

const ratioText = (r: number): string => (r < 0.1 ? r.toFixed(3) : r.toFixed(2));

function tableRow(row: RowResult): string {
  const limit = row.limit ? `${row.limit.name}: ${figure(row.limit)}` : '—';
  const ratio = row.ratio === undefined ? '—' : ratioText(row.ratio);
  const met = row.goal ? (row.goal.met === null ? '?' : row.goal.met ? 'yes' : 'no') : '—';
  return `| ${backendNames[row.backend]} | ${row.title} | ${cairnCell(row)} | ${limit} | ${ratio} | ${row.goal?.text ?? '—'} | ${met} |`;
}

/** Renders `results` as the Markdown of `report.md`: the per-request table and charts, then the scale, history, log append and Patroni fault runs. */
export function renderReport(results: ResultsDocument): string {
  const lines = [
    '# Cairn benchmarks',
    '',
    "Where a request's CPU goes: `bench/cpu-command.ts` measures the server's CPU per create and per GET and profiles them; " +
      'the flame graphs of a [create](profiles/after-create.svg) and a [GET](profiles/after-get.svg), with their tables and those before the last change beside them in `bench/profiles/`, ' +
      'are read in docs/architecture.md, "Where the time goes".',
    '',
  ];
  if (results.meta && results.rows && results.latencyCurves) lines.push(...perRequest(results as BenchResults));
  lines.push(...renderScale(results.scale), ...renderHistory(results.history), ...renderLogAppends(results.logAppends), ...renderFaults(results.faults));
  return lines.join('\n');
}

/** The sections of `npm run bench`. */
function perRequest(results: BenchResults): string[] {
  const { meta } = results;
  const lines = [
    `A snapshot of commit \`${meta.commit}\`${meta.dirty ? ' (with uncommitted changes)' : ''}, measured ${meta.date} by \`npm run bench${meta.profile === 'quick' ? ' -- --quick' : ''}\` ` +
      `(${meta.profile} profile, ${meta.runs} run${meta.runs > 1 ? 's' : ''} of every figure, ${Math.round(meta.durationSeconds)} s in all) ` +
      `on ${meta.cpus} × ${meta.cpuModel}, ${meta.memoryGiB} GiB, Node.js ${meta.node}${meta.postgres ? `, ${meta.postgres}` : ''}. ` +
      `Load generators, Cairn and the database share the machine; its 1-minute load average was ${meta.loadAverage.start} when the run started and ${meta.loadAverage.end} when it ended. ` +
      'How each row is measured: docs/architecture.md, "Benchmarks".',
    '',
    'Each figure is the median of its runs, with the smallest run beside it (for a rate the slowest run, for a time or a size the best). ' +
      'The ratio is median Cairn over median limit, both from this run; a goal on a row with a limit is on that ratio.',
    '',
    '| backend | path | Cairn | the limit, same run | ratio | goal | met |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...results.rows.map(tableRow),
    '',
  ];
  const notes = results.rows.flatMap((row) =>
    [...row.notes, ...(row.error ? [`failed: ${row.error}`] : [])].map((n) => `- ${backendNames[row.backend]}, ${row.title}: ${n}`),
  );
  if (notes.length) lines.push('## Notes', '', ...notes, '');
  lines.push('## Watch latency', '', 'Time from sending a create to a watcher reading its ADDED event, by percentile of all deliveries.', '');
  for (const backend of ['postgres', 'pglite'] as const) {
    const curves = results.latencyCurves.filter((c) => c.backend === backend);
    if (curves.length === 0) continue;
    lines.push(`### ${backendNames[backend]}`, '', '```text', latencyChart(curves), '```', '');
  }
  return lines;
}
