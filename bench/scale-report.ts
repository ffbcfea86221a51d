/**
 * The scale section of `report.md`: each backend's figures at N beside their targets, the
 * sizes on the way, and charts of RSS and first-page latency against the object count.
 */
import asciichart from 'asciichart';
import { formatMs } from './latency-chart.js';
import type { ScaleFigure, ScaleResults, ScaleRun, ScaleStage } from './scale-results.js';

const backendNames = { postgres: 'PostgreSQL', pglite: 'PGlite' } as const;
const n = (v: number): string => Math.round(v).toLocaleString('en-US');

function value(v: number, unit: string): string {
  if (unit === 'ms') return `${formatMs(v)} ms`;
  if (unit === 'MiB') return `${v.toFixed(0)} MiB`;
  if (unit === 's') return `${v.toFixed(2)} s`;
  if (unit === '×' || unit === 'cores') return `${v.toFixed(2)}${unit === '×' ? '' : ' cores'}`;
  return `${n(v)} ${unit}`;
}

export function figureRow(f: ScaleFigure): string {
  const measured = f.value === undefined ? 'not measured' : value(f.value, f.unit);
  const target = f.target ? `${f.target.op === '<=' ? '≤' : '≥'} ${value(f.target.bound, f.unit)}` : '—';
  const ratio = f.ratio === undefined ? '—' : f.ratio.toFixed(2);
  const met = f.met === undefined ? '—' : f.met ? 'yes' : 'no';
  return `| ${f.item} | ${f.title} | ${measured} | ${target} | ${ratio} | ${met} | ${(f.note ?? '').replaceAll('|', '/')} |`;
}

function stageRow(s: ScaleStage): string {
  const page = (l: ScaleStage['firstPage']['cluster'] | undefined): string => (l ? `${formatMs(l.p99)} ms (first ${formatMs(l.first)} ms)` : '—');
  return `| ${n(s.objects)} | ${s.seedSeconds.toFixed(1)} s | ${(s.readyMs / 1000).toFixed(2)} s | ${s.rssAfterStartMiB.toFixed(0)} MiB | ${page(s.firstPage.cluster)} | ${page(s.firstPage.namespace)} | ${s.createsPerSecond === undefined ? '—' : n(s.createsPerSecond)} |`;
}

/** Columns of a chart: the object count on a log scale from the first size to the last. */
const chartWidth = 48;

/**
 * Draws `series` (values at each stage) against the stages' object counts, on a log
 * scale, straight between the measured points, each line labelled at its right end.
 */
export function scaleChart(stages: readonly ScaleStage[], series: readonly { label: string; values: readonly number[] }[], unit: string): string {
  const xs = stages.map((s) => Math.log10(s.objects));
  const span = xs.at(-1)! - xs[0] || 1;
  const column = (x: number): number => Math.round(((x - xs[0]) / span) * (chartWidth - 1));
  const lines = series.map(({ values }) =>
    Array.from({ length: chartWidth }, (_, c) => {
      const x = xs[0] + (c / (chartWidth - 1)) * span;
      let j = 0;
      while (j < xs.length - 2 && x > xs[j + 1]) j++;
      const t = xs[j + 1] === undefined || xs[j + 1] === xs[j] ? 0 : (x - xs[j]) / (xs[j + 1] - xs[j]);
      return values[j] + (values[Math.min(j + 1, values.length - 1)] - values[j]) * Math.min(1, Math.max(0, t));
    }),
  );
  const all = lines.flat();
  const [min, max] = [Math.min(...all), Math.max(...all)];
  const height = 10;
  const format = (y: number): string => `${unit === 'ms' ? formatMs(y) : y.toFixed(0)} ${unit}`.padStart(10);
  const plot = asciichart.plot(lines, { height, min, max, format }).split('\n');
  // asciichart's own row arithmetic, to find the row each line ends on and label it there.
  const ratio = max > min ? height / (max - min) : 1;
  const rows = Math.round(max * ratio) - Math.round(min * ratio);
  const labels = new Map<number, string[]>();
  for (const [i, line] of lines.entries()) {
    const row = rows - (Math.round(line.at(-1)! * ratio) - Math.round(min * ratio));
    labels.set(row, [...(labels.get(row) ?? []), series[i].label]);
  }
  const width = Math.max(...plot.map((l) => l.trimEnd().length));
  const labelled = plot.map((l, row) => (labels.has(row) ? `${l.trimEnd().padEnd(width)}  ◂ ${labels.get(row)!.join(', ')}` : l.trimEnd()));
  const axis = Math.max(plot[0].indexOf('┤'), plot[0].indexOf('┼')) + 1;
  let ticks = ' '.repeat(axis);
  for (const [k, s] of stages.entries()) {
    const text = n(s.objects);
    const centred = k === 0 ? 0 : k === stages.length - 1 ? text.length - 1 : Math.floor(text.length / 2);
    ticks = ticks.padEnd(k === 0 ? axis : Math.max(ticks.length + 1, axis + column(xs[k]) - centred)) + text;
  }
  return [...labelled, ticks, `${' '.repeat(axis)}Pipelines in the database (log scale)`].join('\n');
}

function runSection(backend: keyof typeof backendNames, run: ScaleRun): string[] {
  const { meta } = run;
  const lines = [
    `### ${backendNames[backend]}, ${n(meta.count)} Pipelines`,
    '',
    `Commit \`${meta.commit}\`${meta.dirty ? ' (with uncommitted changes)' : ''}, ${meta.date}, \`npm run bench -- --scale ${meta.count}${meta.profile === 'quick' ? ' --quick' : ''}${backend === 'pglite' ? ' --backend pglite' : ''}\`, ` +
      `${Math.round(meta.durationSeconds)} s in all, on ${meta.cpus} × ${meta.cpuModel}, ${meta.memoryGiB} GiB, Node.js ${meta.node}${meta.postgres ? `, ${meta.postgres}` : ''}; ` +
      `${meta.namespaces} namespaces, the garbage collector on; 1-minute load average ${meta.loadAverage.start} at the start, ${meta.loadAverage.end} at the end.`,
    '',
    '| item | figure | measured | target | ratio | met | notes |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...run.figures.map(figureRow),
    '',
    'On the way to N (seeded through the fast path, then Cairn started; creates/s with the same clients and seconds at each size):',
    '',
    '| Pipelines | seeding | ready | RSS after start | first page, cluster, p99 | first page, namespace, p99 | creates/s |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...run.stages.map(stageRow),
    '',
  ];
  if (run.stages.length > 1) {
    lines.push(
      '```text',
      scaleChart(run.stages, [{ label: 'RSS after start', values: run.stages.map((s) => s.rssAfterStartMiB) }], 'MiB'),
      '```',
      '',
      '```text',
      scaleChart(
        run.stages,
        [
          { label: 'first page p99, cluster', values: run.stages.map((s) => s.firstPage.cluster.p99) },
          { label: 'namespace', values: run.stages.map((s) => s.firstPage.namespace.p99) },
        ],
        'ms',
      ),
      '```',
      '',
    );
  }
  if (run.notes.length) lines.push(...run.notes.map((note) => `- ${note}`), '');
  return lines;
}

/** The Markdown of the scale section, or nothing when no scale run was recorded. */
export function renderScale(scale: ScaleResults | undefined): string[] {
  const runs = (['postgres', 'pglite'] as const).flatMap((b) => (scale?.[b] ? [[b, scale[b]] as const] : []));
  if (runs.length === 0) return [];
  return [
    '## At scale (issue 24)',
    '',
    'Figures of `npm run bench -- --scale N`: a database seeded through the fast path (rows as the API writes them, samples read back through the API), ' +
      'then every figure at N beside its target; the ratio is the figure over its target.',
    '',
    ...runs.flatMap(([b, run]) => runSection(b, run)),
  ];
}
