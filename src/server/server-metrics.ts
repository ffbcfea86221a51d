/**
 * The metrics of a running server: the API's (kube-apiserver's names, from the http
 * layer), the number of stored objects per resource, and Cairn's own about the work
 * the server does besides serving requests (compaction).
 */
import { Counter } from 'prom-client';
import type { ApiGroup } from '../apis/api-resource.js';
import { ApiMetrics } from '../http/filters/metrics.js';
import type { Database } from '../storage/database.js';
import { countObjects } from '../storage/object-counts.js';

/** A server's metrics, and what it records in them. */
export interface ServerMetrics {
  readonly api: ApiMetrics;
  /** One run of event-log compaction, and how it ended (skipped: another replica was compacting). */
  compactionRun(result: 'success' | 'skipped' | 'failure'): void;
}

/** The metrics of a server on `database` (undefined until storage is up: no objects are counted then). */
export function serverMetrics(groups: readonly ApiGroup[], database: () => Database | undefined): ServerMetrics {
  const api = new ApiMetrics(groups, async () => {
    const db = database();
    return db ? countObjects(db) : new Map();
  });
  const compactions = new Counter({
    name: 'cairn_compaction_runs_total',
    help: 'Runs of event-log compaction, by result.',
    labelNames: ['result'],
    registers: [api.registry],
  });
  return { api, compactionRun: (result) => compactions.inc({ result }) };
}
