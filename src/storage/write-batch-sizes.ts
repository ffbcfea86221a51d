/**
 * How many writes each group commit carried, for `/metrics`
 * (`cairn_storage_write_batch_size`): a batch of one under light load, larger ones as
 * writes queue behind the batch in flight.
 */
import { CountedHistogram } from './counted-histogram.js';

/** The sizes of every write batch this process committed (or tried to), across its stores. */
export const writeBatchSizes = new CountedHistogram([1, 2, 4, 8, 16, 32, 64, 128, 256]);
