/**
 * The `scale` section of `results.json` (issue 24): per backend, the figures of one run at
 * N objects each beside its target, and the sizes on the way to N (the chart's points).
 */
import type { BenchMeta } from './bench-results.js';
import type { Latencies } from './scale-reads.js';

/** A target: the figure must be at most or at least `bound`. */
export interface Target {
  readonly op: '<=' | '>=';
  readonly bound: number;
}

/** One figure of the scale run. */
export interface ScaleFigure {
  readonly id: string;
  /** The item of issue 24 the figure belongs to. */
  readonly item: number;
  readonly title: string;
  readonly unit: string;
  /** Absent when the step failed or is not wired (see `note`). */
  readonly value?: number;
  readonly target?: Target;
  /** value / bound: at most 1 meets a `<=` target, at least 1 a `>=` one. */
  readonly ratio?: number;
  readonly met?: boolean;
  readonly note?: string;
}

/** What one size measured (a point of the chart). */
export interface ScaleStage {
  /** Pipelines seeded, and in the database in all (the bench's own creates of earlier sizes included). */
  readonly seeded: number;
  readonly objects: number;
  /** Seeding from the previous size to this one. */
  readonly seedSeconds: number;
  readonly readyMs: number;
  readonly rssAfterStartMiB: number;
  readonly firstPage: { readonly cluster: Latencies; readonly namespace: Latencies };
  readonly createsPerSecond?: number;
}

/** One backend's scale run. */
export interface ScaleRun {
  readonly meta: BenchMeta & { readonly count: number; readonly namespaces: number; readonly soakSeconds: number };
  readonly stages: readonly ScaleStage[];
  readonly figures: readonly ScaleFigure[];
  /** What went wrong or needs saying (a failed step, missing deliveries). */
  readonly notes: readonly string[];
}

/** The `scale` section: the last run of each backend. */
export type ScaleResults = Partial<Record<'postgres' | 'pglite', ScaleRun>>;

/** A figure with its ratio and verdict worked out. */
export function scaleFigure(f: Omit<ScaleFigure, 'ratio' | 'met'>): ScaleFigure {
  if (f.value === undefined || !Number.isFinite(f.value)) return { ...f, value: undefined };
  const value = Number(f.value.toPrecision(4));
  if (!f.target) return { ...f, value };
  const ratio = f.target.bound === 0 ? undefined : Number((value / f.target.bound).toPrecision(3));
  const met = f.target.op === '<=' ? value <= f.target.bound : value >= f.target.bound;
  return { ...f, value, ...(ratio !== undefined && { ratio }), met };
}
