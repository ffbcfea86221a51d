/**
 * The rows of the bench's tables: what each measures, against which limit, whether
 * kube-apiserver + etcd serving Pipelines as a CRD is measured beside it, and their goals
 * (issues 12 and 28). Counts in titles follow the profile, so a quick run says what it did.
 */
import type { Profile } from './profile.js';

/** Where Cairn stores its objects. */
export type Backend = 'postgres' | 'pglite';

/** A goal on the ratio to the limit, or on the value itself when the row has no limit. */
export interface Goal {
  readonly on: 'ratio' | 'value';
  readonly op: '>=' | '<=';
  readonly bound: number;
}

/** One row of the table. */
export interface RowSpec {
  readonly id: string;
  readonly title: (p: Profile) => string;
  readonly unit: string;
  readonly backends: readonly Backend[];
  /** What the row is compared with, per backend (and in which unit); no ratio when absent. */
  readonly limit?: { readonly [B in Backend]?: { readonly name: string; readonly unit: string } };
  /** A second figure shown beside the first (p50 beside p99). */
  readonly secondary?: { readonly label: string; readonly unit: string };
  readonly goal?: Goal;
  /**
   * Present when the row is measured on kube-apiserver + etcd too (the same figure, and
   * the secondary one beside it), with a goal on the ratio Cairn / kube-apiserver.
   */
  readonly kube?: { readonly goal?: Goal };
}

const both: readonly Backend[] = ['postgres', 'pglite'];
const n = (value: number): string => value.toLocaleString('en-US');
const watchTitle = (s: Profile['watchBurst']): string => `watch: ${n(s.watchers)} watchers × ${n(s.writes)} creates sent at ${n(s.perSecond)}/s, p99 (p50)`;
/** A limit that is the same on both backends. */
const onBoth = (name: string, unit: string): NonNullable<RowSpec['limit']> => ({ postgres: { name, unit }, pglite: { name, unit } });
const createsLimit = onBoth('creates, same backend and run', '/s');
const bareKoa = 'bare Koa HTTPS returning a small constant JSON';
/** The watch rows' limit: the same creates and watches on a server with nothing of Kubernetes (bench/bare-koa-server.ts). */
const bareWatchLimit = { postgres: { name: 'bare Koa HTTPS: each create one INSERT, its event written to every watch', unit: 'ms' } };

/** Every row, in the order of the report. */
export const rowSpecs: readonly RowSpec[] = Object.freeze([
  {
    id: 'creates',
    title: (p) => `creates of ~900-byte Pipelines, ${p.createClients} clients`,
    unit: '/s',
    backends: both,
    limit: {
      postgres: { name: 'pgbench, one ~1 KB JSONB row per transaction, 16 clients', unit: 'tps' },
      pglite: { name: 'raw PGlite inserts, one ~1 KB JSONB row each, in one process', unit: '/s' },
    },
    goal: { on: 'ratio', op: '>=', bound: 0.4 },
    kube: {},
  },
  {
    id: 'get',
    title: (p) => `GET one Pipeline by name, ${p.getConnections} connections`,
    unit: '/s',
    backends: both,
    limit: onBoth(bareKoa, '/s'),
    goal: { on: 'ratio', op: '>=', bound: 0.5 },
    kube: {},
  },
  {
    id: 'creates-workers',
    title: (p) => `creates of ~900-byte Pipelines, ${p.createClients} clients, --workers 2 (and 1)`,
    unit: '/s',
    backends: ['postgres'],
    limit: { postgres: { name: 'pgbench, one ~1 KB JSONB row per transaction, 16 clients', unit: 'tps' } },
    secondary: { label: '1 worker', unit: '/s' },
  },
  {
    id: 'get-workers',
    title: (p) => `GET one Pipeline by name, ${p.getConnections} connections, --workers 2 (and 1)`,
    unit: '/s',
    backends: ['postgres'],
    limit: { postgres: { name: bareKoa, unit: '/s' } },
    secondary: { label: '1 worker', unit: '/s' },
  },
  {
    id: 'get-vs-raw-pglite',
    title: (p) => `GET one Pipeline by name, ${p.getConnections} connections, vs raw PGlite`,
    unit: '/s',
    backends: ['pglite'],
    limit: { pglite: { name: 'raw PGlite selects by key, in one process', unit: '/s' } },
    goal: { on: 'ratio', op: '>=', bound: 0.4 },
  },
  {
    id: 'updates',
    title: (p) => `updates (PUT) of ~900-byte Pipelines, ${p.createClients} clients`,
    unit: '/s',
    backends: both,
    limit: createsLimit,
    goal: { on: 'ratio', op: '>=', bound: 0.6 },
  },
  {
    id: 'merge-patches',
    title: (p) => `merge patches of one annotation, ${p.createClients} clients`,
    unit: '/s',
    backends: both,
    limit: createsLimit,
    goal: { on: 'ratio', op: '>=', bound: 0.6 },
  },
  {
    id: 'create-latency',
    title: () => 'create latency at 1 client, p99 (p50)',
    unit: 'ms',
    backends: both,
    secondary: { label: 'p50', unit: 'ms' },
  },
  {
    id: 'cpu-create',
    title: (p) => `server CPU per create, ${p.createClients} clients (Node; kube-apiserver)`,
    unit: 'ms',
    backends: both,
    limit: { postgres: { name: 'bare Koa HTTPS inserting each body as one JSONB row', unit: 'ms' } },
    goal: { on: 'value', op: '<=', bound: 0.25 },
    kube: {},
  },
  {
    id: 'cpu-get',
    title: (p) => `server CPU per GET, ${p.getConnections} connections (Node; kube-apiserver)`,
    unit: 'ms',
    backends: both,
    limit: onBoth(bareKoa, 'ms'),
    goal: { on: 'value', op: '<=', bound: 0.04 },
    kube: {},
  },
  {
    id: 'cpu-create-store',
    title: (p) => `CPU per create, ${p.createClients} clients, server + database (+ PostgreSQL; + etcd)`,
    unit: 'ms',
    backends: ['postgres'],
    kube: {},
  },
  {
    id: 'cpu-get-store',
    title: (p) => `CPU per GET, ${p.getConnections} connections, server + database (+ PostgreSQL; + etcd)`,
    unit: 'ms',
    backends: ['postgres'],
    kube: {},
  },
  {
    id: 'watch-burst',
    title: (p) => watchTitle(p.watchBurst),
    unit: 'ms',
    backends: both,
    limit: bareWatchLimit,
    secondary: { label: 'p50', unit: 'ms' },
    kube: {},
  },
  {
    id: 'watch-steady',
    title: (p) => watchTitle(p.watchSteady),
    unit: 'ms',
    backends: both,
    limit: bareWatchLimit,
    secondary: { label: 'p50', unit: 'ms' },
    goal: { on: 'value', op: '<=', bound: 10 },
    kube: { goal: { on: 'ratio', op: '<=', bound: 0.5 } },
  },
  {
    id: 'watch-many',
    title: (p) => watchTitle(p.watchMany),
    unit: 'ms',
    backends: both,
    limit: bareWatchLimit,
    secondary: { label: 'p50', unit: 'ms' },
    goal: { on: 'value', op: '<=', bound: 50 },
    kube: {},
  },
  {
    id: 'idle-watchers',
    title: (p) => `${n(p.watchMany.watchers)} idle watchers: server RSS growth (RSS)`,
    unit: 'MiB',
    backends: both,
    secondary: { label: 'RSS', unit: 'MiB' },
    goal: { on: 'value', op: '<=', bound: 100 },
  },
  {
    id: 'memory',
    title: () => 'memory after the loads and watches above: server + database (server alone), RSS',
    unit: 'MiB',
    backends: both,
    secondary: { label: 'server alone', unit: 'MiB' },
    kube: {},
  },
  {
    id: 'cross-replica',
    title: (p) => `cross-replica ${watchTitle(p.crossReplica).replace('watch: ', 'watch, ')}`,
    unit: 'ms',
    backends: ['postgres'],
    secondary: { label: 'p50', unit: 'ms' },
    goal: { on: 'value', op: '<=', bound: 50 },
  },
  {
    id: 'list',
    title: (p) => `LIST ${n(p.listObjects)} Pipelines, one request`,
    unit: 'ms',
    backends: both,
    limit: onBoth('query + JSON.stringify of the same rows', 'ms'),
    goal: { on: 'ratio', op: '<=', bound: 2 },
    kube: {},
  },
  { id: 'list-pages', title: (p) => `LIST ${n(p.listObjects)} Pipelines in pages of ${p.pageSize}`, unit: 'ms', backends: both },
  {
    id: 'list-streamed',
    title: (p) => `LIST ${n(p.streamedObjects)} Pipelines, one request: server RSS growth (time)`,
    unit: 'MiB',
    backends: both,
    limit: onBoth('response size', 'MiB'),
    secondary: { label: 'time', unit: 'ms' },
    goal: { on: 'ratio', op: '<=', bound: 2 },
  },
  { id: 'time-to-ready', title: () => 'time to ready, fresh data directory', unit: 's', backends: both },
] satisfies RowSpec[]);

/** The rows a run on `backends` reports. */
export function rowsFor(backends: readonly Backend[]): { spec: RowSpec; backend: Backend }[] {
  return backends.flatMap((backend) => rowSpecs.filter((s) => s.backends.includes(backend)).map((spec) => ({ spec, backend })));
}

/** How a goal reads in the table: `≥ 0.4 × limit`, `≤ 0.5 × kube-apiserver`, `≤ 20 ms`. */
export function goalText(goal: Goal, unit: string, against = 'limit'): string {
  const op = goal.op === '>=' ? '≥' : '≤';
  return goal.on === 'ratio' ? `${op} ${goal.bound} × ${against}` : `${op} ${goal.bound} ${unit}`;
}

/** Whether `value` meets the goal. */
export const meets = (goal: Goal, value: number): boolean => (goal.op === '>=' ? value >= goal.bound : value <= goal.bound);
