/** Summaries of repeated measurements and of latency samples. */

/** A figure measured several times: every run, the smallest and the median. */
export interface Measured {
  readonly runs: readonly number[];
  readonly min: number;
  readonly median: number;
}

/** Summarizes the runs of one figure; throws on none, so a missing run is never a zero. */
export function measured(runs: readonly number[]): Measured {
  if (runs.length === 0) throw new Error('no runs to summarize');
  const sorted = [...runs].sort((a, b) => a - b);
  return Object.freeze({ runs: Object.freeze([...runs]), min: sorted[0], median: median(sorted) });
}

/** The median of `values`, in any order. */
export function medianOf(values: readonly number[]): number {
  return median([...values].sort((a, b) => a - b));
}

/** The median of already sorted values. */
function median(sorted: readonly number[]): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The value at percentile `p` (0–100) of ascending `sorted` samples, nearest-rank as
 * HdrHistogram reports it: p99 of 200 samples is the 198th.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) throw new Error('no samples');
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}
