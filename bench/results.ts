/**
 * What a bench run found: every figure's runs per row and backend, and kube-apiserver's
 * beside them, gathered as the run goes, then summarized into the rows of `results.json`
 * (min, median, ratios to the limit and to kube-apiserver, goals met or not).
 */
import { goalText, meets, rowSpecs, rowsFor, type Backend, type RowSpec } from './rows.js';
import type { Profile } from './profile.js';
import { measured, percentile, type Measured } from './stats.js';

/** A summarized figure and its unit. */
export interface Figure extends Measured {
  readonly unit: string;
}

/** One row of the table for one backend. */
export interface RowResult {
  readonly id: string;
  readonly backend: Backend;
  readonly title: string;
  readonly cairn?: Figure;
  readonly secondary?: Figure & { readonly label: string };
  readonly limit?: Figure & { readonly name: string };
  /** median(Cairn) / median(limit). */
  readonly ratio?: number;
  readonly goal?: { readonly text: string; readonly met: boolean | null };
  /** The same figure of kube-apiserver + etcd serving Pipelines as a CRD, in this run (the same for every backend). */
  readonly kube?: Figure & { readonly secondary?: Figure & { readonly label: string } };
  /** median(Cairn) / median(kube-apiserver). */
  readonly kubeRatio?: number;
  readonly kubeGoal?: { readonly text: string; readonly met: boolean | null };
  readonly notes: readonly string[];
  /** Why a figure is missing: the scenario failed. */
  readonly error?: string;
  /** Why kube-apiserver's figure is missing. */
  readonly kubeError?: string;
}

/** Whose figures: Cairn's on a backend, or kube-apiserver + etcd's, measured once for every backend. */
export type Subject = Backend | 'kube';

/** A latency distribution drawn in the report: ms at each percentile. */
export interface LatencyCurve {
  readonly backend: Subject;
  readonly id: string;
  readonly label: string;
  readonly samples: number;
  readonly points: readonly { readonly percentile: number; readonly ms: number }[];
}

/** Which figure of a row a value belongs to: the main one (Cairn's, or kube-apiserver's), the limit, the secondary. */
export type FigureKind = 'cairn' | 'limit' | 'secondary';

/** Percentiles of a curve: evenly spaced in "nines" from 0 to 99.9, as HdrHistogram plots them. */
export const curvePercentiles: readonly number[] = Object.freeze(Array.from({ length: 61 }, (_, i) => 100 * (1 - 10 ** (-i / 20))));

interface Gathered {
  readonly figures: Record<FigureKind, number[]>;
  readonly notes: string[];
  readonly errors: string[];
}

/** Gathers figures while the bench runs. */
export class Collector {
  readonly #rows = new Map<string, Gathered>();
  readonly #samples = new Map<string, { backend: Subject; id: string; label: string; runs: Float64Array[] }>();

  #row(backend: Subject, id: string): Gathered {
    const key = `${backend}/${id}`;
    let row = this.#rows.get(key);
    if (!row) this.#rows.set(key, (row = { figures: { cairn: [], limit: [], secondary: [] }, notes: [], errors: [] }));
    return row;
  }

  /** Adds one run's value of a figure; kube-apiserver's main figure is its `cairn` kind. */
  add(backend: Subject, id: string, kind: FigureKind, value: number): void {
    if (!Number.isFinite(value)) throw new Error(`${backend}/${id}: ${kind} is not a number (${value})`);
    // Four significant digits: runs differ by far more, and results.json stays readable.
    this.#row(backend, id).figures[kind].push(Number(value.toPrecision(4)));
  }

  /** Adds a remark shown under the table (missing deliveries, failed requests). */
  note(backend: Subject, id: string, text: string): void {
    this.#row(backend, id).notes.push(text);
  }

  /** Records that a scenario failed. */
  fail(backend: Subject, id: string, error: unknown): void {
    this.#row(backend, id).errors.push(error instanceof Error ? error.message : String(error));
  }

  /** Keeps one run's latency samples for the row's curve. */
  samples(backend: Subject, id: string, label: string, sorted: Float64Array): void {
    const key = `${backend}/${id}`;
    const entry = this.#samples.get(key) ?? { backend, id, label, runs: [] };
    entry.runs.push(sorted);
    this.#samples.set(key, entry);
  }

  /** Every row of a run on `backends`, summarized; with kube-apiserver's figures beside them when it was `kube` measured. */
  rows(profile: Profile, backends: readonly Backend[], kube: boolean): RowResult[] {
    return rowsFor(backends).map(({ spec, backend }) => {
      const row = summarize(spec, backend, profile, this.#row(backend, spec.id));
      return kube && spec.kube ? { ...row, ...summarizeKube(spec, row, this.#row('kube', spec.id)) } : row;
    });
  }

  /** kube-apiserver's notes, once for the run. */
  kubeNotes(): { id: string; text: string }[] {
    return rowSpecs.flatMap((spec) => (this.#rows.get(`kube/${spec.id}`)?.notes ?? []).map((text) => ({ id: spec.id, text })));
  }

  /** The latency curves, every run of a row pooled. */
  curves(): LatencyCurve[] {
    return [...this.#samples.values()].map(({ backend, id, label, runs }) => {
      const pooled = new Float64Array(runs.reduce((sum, r) => sum + r.length, 0));
      runs.reduce((offset, r) => (pooled.set(r, offset), offset + r.length), 0);
      pooled.sort();
      const points = curvePercentiles.map((p) => ({ percentile: Number(p.toPrecision(4)), ms: Number(percentile(pooled, p).toPrecision(4)) }));
      return { backend, id, label, samples: pooled.length, points };
    });
  }
}

/** The kube-apiserver part of a row: its figure, the ratio of Cairn's to it, the goal on that ratio. */
function summarizeKube(spec: RowSpec, cairnRow: RowResult, row: Gathered): Pick<RowResult, 'kube' | 'kubeRatio' | 'kubeGoal' | 'kubeError'> {
  const { figures } = row;
  const main = figures.cairn.length ? { ...measured(figures.cairn), unit: spec.unit } : undefined;
  const secondary =
    spec.secondary && figures.secondary.length ? { label: spec.secondary.label, ...measured(figures.secondary), unit: spec.secondary.unit } : undefined;
  const kube = main && { ...main, ...(secondary && { secondary }) };
  const cairn = cairnRow.cairn;
  const kubeRatio = cairn && kube && kube.median > 0 ? Number((cairn.median / kube.median).toPrecision(3)) : undefined;
  const goal = spec.kube?.goal;
  const kubeGoal = goal && { text: goalText(goal, spec.unit, 'kube-apiserver'), met: kubeRatio === undefined ? null : meets(goal, kubeRatio) };
  const kubeError = row.errors.length ? row.errors.join('; ') : kube ? undefined : 'no figure was measured';
  return { ...(kube && { kube }), ...(kubeRatio !== undefined && { kubeRatio }), ...(kubeGoal && { kubeGoal }), ...(kubeError !== undefined && { kubeError }) };
}

function summarize(spec: RowSpec, backend: Backend, profile: Profile, row: Gathered): RowResult {
  const { figures } = row;
  const limitSpec = spec.limit?.[backend];
  const cairn = figures.cairn.length ? { ...measured(figures.cairn), unit: spec.unit } : undefined;
  const limit = limitSpec && figures.limit.length ? { name: limitSpec.name, ...measured(figures.limit), unit: limitSpec.unit } : undefined;
  const secondary =
    spec.secondary && figures.secondary.length ? { label: spec.secondary.label, ...measured(figures.secondary), unit: spec.secondary.unit } : undefined;
  const ratio = cairn && limit && limit.median > 0 ? Number((cairn.median / limit.median).toPrecision(3)) : undefined;
  const judged = spec.goal?.on === 'ratio' ? ratio : cairn?.median;
  const goal = spec.goal && { text: goalText(spec.goal, spec.unit), met: judged === undefined ? null : meets(spec.goal, judged) };
  const missing = !cairn || (limitSpec !== undefined && !limit);
  const error = row.errors.length ? row.errors.join('; ') : missing ? 'no figure was measured' : undefined;
  return {
    id: spec.id,
    backend,
    title: spec.title(profile),
    ...(cairn && { cairn }),
    ...(secondary && { secondary }),
    ...(limit && { limit }),
    ...(ratio !== undefined && { ratio }),
    ...(goal && { goal }),
    notes: row.notes,
    ...(error !== undefined && { error }),
  };
}
