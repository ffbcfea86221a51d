/**
 * The report's latency chart: watch delivery latency by percentile, one line per
 * scenario, drawn with asciichart on a log scale and labelled at its right end.
 */
import asciichart from 'asciichart';
import type { LatencyCurve } from './results.js';

/** The x axis under the chart: where 0, 90, 99 and 99.9 % fall among 61 points evenly spaced in nines. */
const xTicks: readonly [number, string][] = [
  [0, '0%'],
  [20, '90%'],
  [40, '99%'],
  [60, '99.9%'],
];

/**
 * Draws `curves` (all with the same percentiles) in one chart of `height` rows; ms on
 * the y axis, logarithmic so that 2 ms and 400 ms both read.
 */
export function latencyChart(curves: readonly LatencyCurve[], height = 14): string {
  const series = curves.map((c) => c.points.map((p) => Math.log10(Math.max(p.ms, 0.1))));
  const all = series.flat();
  const min = Math.min(...all);
  const max = Math.max(...all);
  const format = (y: number): string => `${formatMs(10 ** y)} ms`.padStart(10);
  const lines = asciichart.plot(series, { height, min, max, format }).split('\n');
  // asciichart's own row arithmetic, to find the row each line ends on.
  const ratio = max > min ? height / (max - min) : 1;
  const min2 = Math.round(min * ratio);
  const rows = Math.abs(Math.round(max * ratio) - min2);
  const labels = new Map<number, string[]>();
  curves.forEach((curve, i) => {
    const row = rows - (Math.round(series[i].at(-1)! * ratio) - min2);
    labels.set(row, [...(labels.get(row) ?? []), curve.label]);
  });
  const width = Math.max(...lines.map((l) => l.trimEnd().length));
  const labelled = lines.map((line, row) => (labels.has(row) ? `${line.trimEnd().padEnd(width)}  ◂ ${labels.get(row)!.join(', ')}` : line.trimEnd()));
  const axis = Math.max(lines[0].indexOf('┤'), lines[0].indexOf('┼')) + 1;
  let ticks = ' '.repeat(axis);
  for (const [x, text] of xTicks) ticks = ticks.padEnd(axis + x - Math.floor(text.length / 2)) + text;
  return [...labelled, ticks, `${' '.repeat(axis)}percentile of deliveries (every run pooled)`].join('\n');
}

/** 0.034 → "0.034", 0.84 → "0.84", 1.5 → "1.50", 12.3 → "12.3", 381 → "381": the CPU rows' fractions of a ms keep two digits. */
export function formatMs(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms >= 1 || ms === 0 ? ms.toFixed(2) : ms.toPrecision(2);
}
