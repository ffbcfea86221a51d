/**
 * The Markdown report: every row against the machine's limits, the rows issue 28 compares
 * against kube-apiserver + etcd (CRD), their notes, and the watch latency charts.
 */
import { formatMs, latencyChart } from './latency-chart.js';
import type { BenchResults, ResultsDocument } from './bench-results.js';
import type { Figure, RowResult, Subject } from './results.js';
import { renderFaults } from './faults-report.js';
import { renderHistory } from './history-report.js';
import { renderLogAppends } from './log-append-report.js';
import { renderScale } from './scale-report.js';

const backendNames: Record<Subject, string> = { postgres: 'PostgreSQL', pglite: 'PGlite', kube: 'kube-apiserver + etcd (CRD)' };

/** A value in its unit: `6,429 tps`, `12.3 ms`, `84.2 MiB`, `3.41 s`. */
function value(v: number, unit: string): string {
  if (unit === 'ms') return `${formatMs(v)} ms`;
  if (unit === 'MiB') return `${v.toFixed(1)} MiB`;
  if (unit === 's') return `${v.toFixed(2)} s`;
  return `${Math.round(v).toLocaleString('en-US')} ${unit}`;
}

const figure = (f: Figure): string => `${value(f.median, f.unit)} (min ${value(f.min, f.unit)})`;

/** A figure with its secondary one beside it (`p50 …`), or why it is missing. */
function cell(main: Figure | undefined, secondary: (Figure & { label: string }) | undefined, error: string | undefined): string {
  if (!main) return `failed: ${(error ?? '').slice(0, 80).replaceAll('|', '/')}`;
  return secondary ? `${figure(main)}; ${secondary.label} ${figure(secondary)}` : figure(main);
}

const ratioText = (r: number): string => (r < 0.1 ? r.toFixed(3) : r.toFixed(2));
const metText = (goal: RowResult['goal']): string => (goal ? (goal.met === null ? '?' : goal.met ? 'yes' : 'no') : '—');

/** A row of the table against the machine's limits. */
function tableRow(row: RowResult): string {
  const limit = row.limit ? `${row.limit.name}: ${figure(row.limit)}` : '—';
  const ratio = row.ratio === undefined ? '—' : ratioText(row.ratio);
  return `| ${backendNames[row.backend]} | ${row.title} | ${cell(row.cairn, row.secondary, row.error)} | ${limit} | ${ratio} | ${row.goal?.text ?? '—'} | ${metText(row.goal)} |`;
}

/** A row of the table against kube-apiserver + etcd. */
function kubeTableRow(row: RowResult): string {
  const kube = cell(row.kube, row.kube?.secondary, row.kubeError);
  const ratio = row.kubeRatio === undefined ? '—' : ratioText(row.kubeRatio);
  return `| ${backendNames[row.backend]} | ${row.title} | ${cell(row.cairn, row.secondary, row.error)} | ${kube} | ${ratio} | ${row.kubeGoal?.text ?? '—'} | ${metText(row.kubeGoal)} |`;
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
      `on ${meta.cpus} × ${meta.cpuModel}, ${meta.memoryGiB} GiB, Node.js ${meta.node}${meta.postgres ? `, ${meta.postgres}` : ''}${meta.kube ? `, ${meta.kube}` : ''}. ` +
      `Load generators, the servers and their databases share the machine; its 1-minute load average was ${meta.loadAverage.start} when the run started and ${meta.loadAverage.end} when it ended. ` +
      'How each row is measured: docs/architecture.md, "Benchmarks".',
    '',
    'Each figure is the median of its runs, with the smallest run beside it (for a rate the slowest run, for a time or a size the best).',
    '',
    "## Against the machine's limits",
    '',
    'The ratio is median Cairn over median limit, both from this run; a goal on a row with a limit is on that ratio.',
    '',
    '| backend | path | Cairn | the limit, same run | ratio | goal | met |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...results.rows.map(tableRow),
    '',
  ];
  const compared = results.rows.filter((row) => row.kube !== undefined || row.kubeError !== undefined);
  if (compared.length)
    lines.push(
      '## Against kube-apiserver + etcd (CRD)',
      '',
      'The same loads, requests and client certificate against kube-apiserver and etcd (fsync on) serving Pipelines as a CustomResourceDefinition, measured once in this run after Cairn: ' +
        'the ratio is median Cairn over median kube-apiserver (above 1 a rate is higher, below 1 a time, CPU or memory is smaller). ' +
        'The CPU rows count the server alone (Cairn’s Node process; kube-apiserver) and with its database (PostgreSQL’s processes; etcd).',
      '',
      '| backend | path | Cairn | kube-apiserver + etcd (CRD), same run | ratio | goal | met |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...compared.map(kubeTableRow),
      '',
    );
  const notes = results.rows.flatMap((row) =>
    [...row.notes, ...(row.error ? [`failed: ${row.error}`] : [])].map((n) => `- ${backendNames[row.backend]}, ${row.title}: ${n}`),
  );
  const titles = new Map(results.rows.map((row) => [row.id, row.title]));
  notes.push(...(results.kubeNotes ?? []).map(({ id, text }) => `- ${backendNames.kube}, ${titles.get(id) ?? id}: ${text}`));
  const kubeFailures = new Map(compared.filter((row) => row.kubeError !== undefined).map((row) => [row.id, row.kubeError]));
  notes.push(...[...kubeFailures].map(([id, error]) => `- ${backendNames.kube}, ${titles.get(id) ?? id}: failed: ${error}`));
  if (notes.length) lines.push('## Notes', '', ...notes, '');
  lines.push('## Watch latency', '', 'Time from sending a create to a watcher reading its ADDED event, by percentile of all deliveries.', '');
  for (const backend of ['postgres', 'pglite', 'kube'] as const) {
    const curves = results.latencyCurves.filter((c) => c.backend === backend);
    if (curves.length === 0) continue;
    lines.push(`### ${backendNames[backend]}`, '', '```text', latencyChart(curves), '```', '');
  }
  return lines;
}
