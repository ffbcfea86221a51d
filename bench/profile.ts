/**
 * How much the bench does: the full profile (every figure at least 3 times, about
 * 10–15 minutes on 2 cores) and `--quick`, a smoke run of every row with tiny counts.
 */
import type { WatchScenario } from './watch-latency.js';

/** Counts and durations of one bench run. */
export interface Profile {
  readonly name: 'full' | 'quick';
  /** Runs of every figure. */
  readonly runs: number;
  /** Seconds of each closed-loop load (creates, GET, updates, patches) and of its limit. */
  readonly loadSeconds: number;
  readonly createClients: number;
  readonly getConnections: number;
  /** Objects the updates and patches go round (more than the clients, so no two collide). */
  readonly updatePool: number;
  /** Seconds of sequential creates for the 1-client latency row. */
  readonly latencySeconds: number;
  readonly watchBurst: WatchScenario;
  readonly watchSteady: WatchScenario;
  readonly watchMany: WatchScenario;
  readonly crossReplica: WatchScenario;
  /** Objects of the one-request LIST and of the paged one. */
  readonly listObjects: number;
  readonly pageSize: number;
  /** Objects of the streamed LIST whose memory is measured. */
  readonly streamedObjects: number;
}

/** Every figure 3 times, at the sizes the issue names. */
export const fullProfile: Profile = Object.freeze({
  name: 'full',
  runs: 3,
  loadSeconds: 5,
  createClients: 16,
  getConnections: 50,
  updatePool: 64,
  latencySeconds: 3,
  watchBurst: { watchers: 200, writes: 100, perSecond: 200 },
  // A p99 over every delivery is set by the slowest 1 % of the creates' fan-outs: enough creates that it is not one create's.
  watchSteady: { watchers: 100, writes: 1000, perSecond: 100 },
  watchMany: { watchers: 1000, writes: 300, perSecond: 20 },
  crossReplica: { watchers: 10, writes: 100, perSecond: 50 },
  listObjects: 10_000,
  pageSize: 500,
  streamedObjects: 100_000,
});

/** One run of everything with tiny counts: proves the bench works, measures nothing. */
export const quickProfile: Profile = Object.freeze({
  name: 'quick',
  runs: 1,
  loadSeconds: 1,
  // Few connections: on a loaded machine 50 TLS handshakes can outlast a 1 s load, leaving a limit of 0.
  createClients: 8,
  getConnections: 10,
  updatePool: 32,
  latencySeconds: 0.5,
  watchBurst: { watchers: 10, writes: 10, perSecond: 200 },
  watchSteady: { watchers: 10, writes: 10, perSecond: 100 },
  watchMany: { watchers: 20, writes: 5, perSecond: 20 },
  crossReplica: { watchers: 5, writes: 5, perSecond: 50 },
  listObjects: 1000,
  pageSize: 500,
  streamedObjects: 2000,
});
