/**
 * How many writes each group commit carried, for `/metrics`
 * (`cairn_storage_write_batch_size`): a batch of one under light load, larger ones as
 * writes queue behind the batch in flight.
 */

/** A cumulative histogram snapshot, as Prometheus exposes one. */
export interface HistogramSnapshot {
  /** Batches of at most `le` writes, cumulative; the last bucket is `+Inf`. */
  readonly buckets: readonly { readonly le: number; readonly count: number }[];
  /** Writes in every batch. */
  readonly sum: number;
  /** Batches. */
  readonly count: number;
}

/**
 * A histogram of batch sizes that storage fills and the metrics endpoint reads, with
 * no metrics library below the HTTP layer.
 *
 * @example
 * // Feed a prom-client histogram:
 * writeBatchSizes.onObserve((size) => histogram.observe(size));
 * // or read it when scraped:
 * const { buckets, sum, count } = writeBatchSizes.snapshot();
 */
export class BatchSizeHistogram {
  /** The upper bounds of the buckets, ascending; `+Inf` follows. */
  readonly bounds: readonly number[];
  readonly #counts: number[];
  #sum = 0;
  #count = 0;
  readonly #listeners = new Set<(size: number) => void>();

  constructor(bounds: readonly number[]) {
    this.bounds = Object.freeze([...bounds]);
    this.#counts = bounds.map(() => 0);
  }

  /** Records one batch of `size` writes. */
  observe(size: number): void {
    this.#sum += size;
    this.#count++;
    for (let i = 0; i < this.bounds.length; i++) if (size <= this.bounds[i]) this.#counts[i]++;
    for (const listener of this.#listeners) listener(size);
  }

  /** Calls `listener` with the size of every batch from now on; returns a function that stops it. */
  onObserve(listener: (size: number) => void): () => void {
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

/** The sizes of every write batch this process committed (or tried to), across its stores. */
export const writeBatchSizes = new BatchSizeHistogram([1, 2, 4, 8, 16, 32, 64, 128, 256]);
