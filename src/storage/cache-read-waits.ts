/**
 * How long reads waited for a watch cache to catch up with the database, for
 * `/metrics` (`apiserver_watch_cache_read_wait_seconds`): a consistent read's wait
 * includes the shared read of the database's newest resourceVersion.
 */
import { CountedHistogram } from './counted-histogram.js';

/** The waits, in seconds, of every store in this process, in kube's buckets. */
export const cacheReadWaits = new CountedHistogram([0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3]);
