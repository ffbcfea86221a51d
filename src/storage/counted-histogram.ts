/**
 * A histogram's counts kept as plain numbers, for `/metrics`.
 */

/** A cumulative histogram snapshot, as Prometheus exposes one. */
export interface HistogramSnapshot {
  /** Observations of at most `le`, cumulative; the last bucket is `+Inf`. */
  readonly buckets: readonly { readonly le: number; readonly count: number }[];
  /** The sum of every observation. */
  readonly sum: number;
  /** Observations. */
  readonly count: number;
}

/**
 * A histogram that storage fills (batch sizes, waits) and the metrics endpoint reads,
 * with no metrics library below the HTTP layer.
 *
 * @example
 * // Feed a prom-client histogram:
 * writeBatchSizes.onObserve((size) => histogram.observe(size));
 * // or read it when scraped:
 * const { buckets, sum, count } = writeBatchSizes.snapshot();
 */
export class CountedHistogram {
  /** The upper bounds of the buckets, ascending; `+Inf` follows. */
  readonly bounds: readonly number[];
  readonly #counts: number[];
  #sum = 0;
  #count = 0;
  readonly #listeners = new Set<(value: number) => void>();

  constructor(bounds: readonly number[]) {
    this.bounds = Object.freeze([...bounds]);
    this.#counts = bounds.map(() => 0);
  }

  /** Records one observation. */
  observe(value: number): void {
    this.#sum += value;
    this.#count++;
    for (let i = 0; i < this.bounds.length; i++) if (value <= this.bounds[i]) this.#counts[i]++;
    for (const listener of this.#listeners) listener(value);
  }

  /** Calls `listener` with every observation from now on; returns a function that stops it. */
  onObserve(listener: (value: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The counts so far. */
  snapshot(): HistogramSnapshot {
    return {
      buckets: [...this.bounds.map((le, i) => ({ le, count: this.#counts[i] })), { le: Infinity, count: this.#count }],
      sum: this.#sum,
      count: this.#count,
    };
  }
}
