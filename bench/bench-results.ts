/** The document `results.json` holds: the run's circumstances, every row (kube-apiserver's figures in them), the latency curves, and the scale runs. */
import type { LatencyCurve, RowResult } from './results.js';
import type { FaultsResults } from './faults-bench.js';
import type { HistoryResults } from './history-bench.js';
import type { LogAppendResults } from './log-append-report.js';
import type { ScaleResults } from './scale-results.js';

/** Where, when and how the figures were measured. */
export interface BenchMeta {
  /** The commit measured (`git rev-parse --short HEAD`). */
  readonly commit: string;
  /** Whether the work tree had uncommitted changes. */
  readonly dirty: boolean;
  /** ISO 8601, when the run started. */
  readonly date: string;
  readonly profile: 'full' | 'quick';
  readonly runs: number;
  readonly durationSeconds: number;
  readonly node: string;
  /** `PostgreSQL 15.18 …`, when PostgreSQL was benched. */
  readonly postgres?: string;
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  /** The 1-minute load average when the run started and ended: other work on the machine shows here. */
  readonly loadAverage: { readonly start: number; readonly end: number };
  /** `kube-apiserver v1.34.4 + etcd v3.6.4 (fsync on)`, when the kube-apiserver column was measured. */
  readonly kube?: string;
}

/** Everything a run of `npm run bench` wrote. */
export interface BenchResults {
  readonly meta: BenchMeta;
  readonly rows: readonly RowResult[];
  readonly latencyCurves: readonly LatencyCurve[];
  /** kube-apiserver's notes (failed requests, missing deliveries), when its column was measured. */
  readonly kubeNotes?: readonly { readonly id: string; readonly text: string }[];
}

/**
 * `results.json`: the last `npm run bench` (absent until one ran into the directory) and
 * the last `npm run bench -- --scale` of each backend. Each run replaces its own part
 * and keeps the others.
 */
export interface ResultsDocument extends Partial<BenchResults> {
  readonly scale?: ScaleResults;
  readonly history?: HistoryResults;
  readonly logAppends?: LogAppendResults;
  readonly faults?: FaultsResults;
}
