/**
 * The history bench of issue 26 (`npm run bench -- --history [N]`): seeds N Pipelines,
 * each with 10 revisions in the event log (bench/history-seed.ts), starts Cairn with a
 * retention that keeps them all, and measures the reads of the past as a client sees
 * them: a LIST at an exact resourceVersion from the middle of the history (its first
 * page and the pages after it), a GET at an old resourceVersion, an object's `history`
 * subresource (first pages of 10 and 100, and a continued page), and the server's RSS
 * while it answers, each beside its target. A read this build does not answer as asked
 * (an older resourceVersion's object, a 404) is noted and left unmeasured.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchMeta } from './bench-results.js';
import { CairnProcess, type CairnOptions } from './cairn-process.js';
import { revisionAt, seedRevisions, type SeededHistory } from './history-seed.js';
import { mib } from './process-memory.js';
import type { Progress } from './progress.js';
import { scaleFigure, type ScaleFigure, type Target } from './scale-results.js';
import { seedName, seedNamespace, seedPipelines, type SeedShape } from './seed.js';
import { openSeedDatabase, writeSeedTemplate } from './seed-samples.js';
import { keepAliveAgent, request, type ServerAccess } from './server-access.js';
import { percentile } from './stats.js';

/** What a history run does. */
export interface HistoryOptions {
  /** Pipelines seeded. */
  readonly count: number;
  readonly namespaces: number;
  /** Revisions of each, its ADDED one included. */
  readonly revisions: number;
  /** Fewer requests per figure. */
  readonly quick: boolean;
  /** Where the server's data directory and log go. */
  readonly workDir: string;
  /** The database, on PostgreSQL; PGlite under the data directory otherwise. */
  readonly databaseUrl?: string;
  readonly progress: Progress;
}

/** What was seeded, and what it costs on disk. */
export interface HistorySeeding {
  readonly objects: number;
  readonly revisions: number;
  readonly events: number;
  readonly seedSeconds: number;
  /** The event log (table, indexes and TOAST) and the whole database, after VACUUM. */
  readonly eventLogBytes: number;
  readonly databaseBytes: number;
}

/** What a history run measured; `notes` say what was not. */
export interface HistoryOutcome {
  readonly seeding?: HistorySeeding;
  readonly figures: ScaleFigure[];
  readonly notes: string[];
}

/** One backend's history run. */
export interface HistoryRun extends HistoryOutcome {
  readonly meta: BenchMeta & { readonly count: number; readonly revisions: number };
}

/** The `history` section of `results.json`: the last run of each backend. */
export type HistoryResults = Partial<Record<'postgres' | 'pglite', HistoryRun>>;

/** The steps a run reports, for the progress bar's total. */
export const historySteps = 6;

const pageTarget: Target = { op: '<=', bound: 100 };
const getTarget: Target = { op: '<=', bound: 10 };
const memoryTarget: Target = { op: '<=', bound: 512 };
const n = (v: number): string => v.toLocaleString('en-US');
const pipelinesPath = '/apis/cairn.dev/v1/pipelines';
const objectPath = (i: number, shape: SeedShape): string => `/apis/cairn.dev/v1/namespaces/${seedNamespace(i, shape)}/pipelines/${seedName(i)}`;

/** Latencies of one kind of request, in ms. */
interface Timed {
  readonly p50: number;
  readonly p99: number;
  readonly samples: number;
}

/** A read that did not answer as asked: what it answered instead. */
class NotAnswered extends Error {}

/** Times `count` reads of `path(i)` on one keep-alive connection, each answer checked by `check` (which throws NotAnswered). */
async function time(
  access: ServerAccess,
  count: number,
  path: (i: number) => string,
  check: (body: Record<string, unknown>, i: number) => void,
): Promise<Timed> {
  const agent = keepAliveAgent(1);
  const samples: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const start = performance.now();
      const response = await request(access, 'GET', path(i), { agent, timeoutMs: 300_000 });
      samples.push(performance.now() - start);
      if (response.status !== 200) throw new NotAnswered(`GET ${path(i)}: HTTP ${response.status}: ${response.text.slice(0, 200)}`);
      check(JSON.parse(response.text) as Record<string, unknown>, i);
    }
  } finally {
    agent.destroy();
  }
  const sorted = samples.sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), samples: samples.length };
}

type Page = { metadata?: { resourceVersion?: string; continue?: string }; items?: { metadata?: { resourceVersion?: string } }[] };

/** Runs the history bench; a read that fails or is not answered as asked is noted and its figures left out. */
export async function runHistoryBench(options: HistoryOptions): Promise<HistoryOutcome> {
  const { count, progress } = options;
  const shape: SeedShape = { count, namespaces: options.namespaces };
  const location: CairnOptions = {
    dataDir: join(options.workDir, 'history'),
    ...(options.databaseUrl !== undefined && { databaseUrl: options.databaseUrl }),
    logFile: join(options.workDir, 'history.log'),
    // A retention that keeps the whole seeded history, and no collector reading along.
    extraArgs: ['--log-level', 'warn', '--event-retention', '7d', '--garbage-collector', 'off'],
  };
  const log = (line: string): void => progress.log(`history: ${line}`);
  const notes: string[] = [];
  await mkdir(options.workDir, { recursive: true });

  progress.step('history: writing the template through the API');
  const template = await writeSeedTemplate(location);
  progress.step(`history: seeding ${n(count)} Pipelines × ${options.revisions} revisions`);
  const started = performance.now();
  const database = await openSeedDatabase(location);
  let history: SeededHistory;
  let seeding: HistorySeeding;
  try {
    const seeded = await seedPipelines(database, { ...shape, template, batch: 5000 });
    log(`seeded ${n(count)} Pipelines in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    history = await seedRevisions(database, {
      seeded,
      revisions: options.revisions,
      onProgress: (round, written) => {
        if (written === count) log(`round ${round} of ${options.revisions - 1} written (${((performance.now() - started) / 1000).toFixed(0)} s)`);
      },
    });
    const [size] = await database.query(
      `SELECT pg_total_relation_size('cairn_events')::text AS events, pg_database_size(current_database())::text AS database`,
      [],
    );
    seeding = {
      objects: count,
      revisions: options.revisions,
      events: count * options.revisions,
      seedSeconds: Number(((performance.now() - started) / 1000).toFixed(1)),
      eventLogBytes: Number(size.events),
      databaseBytes: Number(size.database),
    };
    log(
      `seeded ${n(seeding.events)} events in ${seeding.seedSeconds} s; event log ${(seeding.eventLogBytes / 2 ** 30).toFixed(2)} GiB, database ${(seeding.databaseBytes / 2 ** 30).toFixed(2)} GiB`,
    );
  } finally {
    await database.close();
  }

  progress.step(`history: starting Cairn on ${n(count)} Pipelines with ${n(count * options.revisions)} events`);
  const server = await CairnProcess.start(location);
  const figures: Omit<ScaleFigure, 'ratio' | 'met'>[] = [];
  try {
    const requests = options.quick ? 20 : 200;
    const rssStart = mib(server.residentBytes());
    server.resetPeak();
    log(`ready in ${server.timeToReadyMs.toFixed(0)} ms, RSS ${rssStart.toFixed(0)} MiB`);
    const random = seededRandom(26);
    const measure = async (what: string, work: () => Promise<Omit<ScaleFigure, 'ratio' | 'met'>[]>): Promise<void> => {
      progress.step(`history: ${what}`);
      try {
        const measured = await work();
        figures.push(...measured);
        for (const f of measured) log(`${f.title}: ${f.value?.toFixed(1)} ${f.unit}${f.note ? ` (${f.note})` : ''}`);
      } catch (error) {
        const message = `${what}: ${error instanceof Error ? error.message : String(error)}`;
        notes.push(message);
        log(message);
      }
    };

    // (a) A LIST at a resourceVersion from the middle of the history: half the objects at their 6th revision, half at their 5th.
    const middle = revisionAt(history, Math.floor(count / 2), Math.floor(options.revisions / 2));
    const exact = `resourceVersion=${middle}&resourceVersionMatch=Exact`;
    const checkPage = (body: Record<string, unknown>): void => {
      const page = body as Page;
      if (page.metadata?.resourceVersion !== middle.toString()) throw new NotAnswered(`a LIST at ${middle} answered at ${page.metadata?.resourceVersion}`);
      const newer = page.items?.find((item) => BigInt(item.metadata?.resourceVersion ?? '0') > middle);
      if (newer) throw new NotAnswered(`a LIST at ${middle} answered an object at ${newer.metadata?.resourceVersion}`);
    };
    await measure('LIST at an exact resourceVersion from the middle of the history', async () => {
      const cluster = await time(server.access, requests, () => `${pipelinesPath}?limit=500&${exact}`, checkPage);
      const namespace = await time(
        server.access,
        requests,
        (i) => `/apis/cairn.dev/v1/namespaces/${seedNamespace(i, shape)}/pipelines?limit=500&${exact}`,
        checkPage,
      );
      // The pages after the first, walked in turn: each a continue token carrying the resourceVersion.
      let token: string | undefined;
      const continued = await time(
        server.access,
        requests,
        (i) => (i === 0 || token === undefined ? `${pipelinesPath}?limit=500&${exact}` : `${pipelinesPath}?limit=500&continue=${encodeURIComponent(token)}`),
        (body) => {
          checkPage(body);
          token = (body as Page).metadata?.continue;
        },
      );
      return [
        exactFigure('history-list-first-cluster', `LIST at an exact resourceVersion from the middle, first page (500), cluster, p99`, cluster),
        exactFigure('history-list-first-namespace', `LIST at an exact resourceVersion from the middle, first page (500), namespace, p99`, namespace),
        exactFigure('history-list-continued', `LIST at an exact resourceVersion from the middle, continued pages (500) in turn, p99`, continued),
      ];
    });

    // (b) A GET at an object's 3rd revision, of random objects.
    await measure('GET at an old resourceVersion', async () => {
      const picks = Array.from({ length: requests }, () => Math.floor(random() * count));
      const at = (i: number): bigint => revisionAt(history, picks[i], 2);
      const get = await time(
        server.access,
        requests,
        (i) => `${objectPath(picks[i], shape)}?resourceVersion=${at(i)}&resourceVersionMatch=Exact`,
        (body, i) => {
          const rv = (body as Page).metadata?.resourceVersion;
          if (rv !== at(i).toString()) throw new NotAnswered(`a GET at ${at(i)} answered the object at ${rv}`);
        },
      );
      return [
        {
          id: 'history-get-exact',
          item: 2,
          title: 'GET at an old resourceVersion (an object’s 3rd of 10 revisions), p99',
          unit: 'ms',
          value: get.p99,
          target: getTarget,
          note: `p50 ${get.p50.toFixed(1)} ms, ${get.samples} requests, random objects`,
        },
      ];
    });

    // (c) The history subresource of random objects.
    await measure('history subresource', async () => {
      const picks = Array.from({ length: requests }, () => Math.floor(random() * count));
      const checkRevisions = (expected: number) => (body: Record<string, unknown>) => {
        const items = (body as { items?: unknown[] }).items ?? [];
        if (items.length !== expected) throw new NotAnswered(`a history page held ${items.length} revisions, not ${expected}`);
      };
      const first10 = await time(
        server.access,
        requests,
        (i) => `${objectPath(picks[i], shape)}/history?limit=10`,
        checkRevisions(Math.min(10, options.revisions)),
      );
      const first100 = await time(server.access, requests, (i) => `${objectPath(picks[i], shape)}/history?limit=100`, checkRevisions(options.revisions));
      const half = Math.floor(options.revisions / 2);
      const tokens: string[] = [];
      for (let i = 0; i < requests; i++) {
        const page = await request(server.access, 'GET', `${objectPath(picks[i], shape)}/history?limit=${half}`);
        const token = (JSON.parse(page.text) as Page).metadata?.continue;
        if (page.status !== 200 || !token) throw new NotAnswered(`a history page of ${half} of ${options.revisions} revisions had no continue token`);
        tokens.push(token);
      }
      const continued = await time(
        server.access,
        requests,
        (i) => `${objectPath(picks[i], shape)}/history?limit=${half}&continue=${encodeURIComponent(tokens[i])}`,
        checkRevisions(options.revisions - half),
      );
      return [
        historyFigure('history-first-10', 'history subresource, first page (limit 10), p99', first10),
        historyFigure('history-first-100', `history subresource, first page (limit 100: all ${options.revisions}), p99`, first100),
        historyFigure('history-continued', `history subresource, continued page (limit ${half}, the second), p99`, continued),
      ];
    });

    // (d) The server's memory through all of it.
    progress.step('history: RSS');
    const rssEnd = mib(server.residentBytes());
    const peak = mib(server.peakResidentBytes());
    figures.push(
      {
        id: 'history-rss-start',
        item: 5,
        title: `RSS after start, ${n(count)} Pipelines × ${options.revisions} revisions`,
        unit: 'MiB',
        value: rssStart,
        target: memoryTarget,
      },
      {
        id: 'history-rss-peak',
        item: 5,
        title: 'RSS peak while the reads of the past ran',
        unit: 'MiB',
        value: peak,
        target: memoryTarget,
        note: `${rssEnd.toFixed(0)} MiB after them`,
      },
    );
    log(`RSS ${rssStart.toFixed(0)} MiB after start, peak ${peak.toFixed(0)} MiB, ${rssEnd.toFixed(0)} MiB after the reads`);
  } finally {
    await server.stop();
  }
  return { seeding, figures: figures.map(scaleFigure), notes };
}

const exactFigure = (id: string, title: string, t: Timed): Omit<ScaleFigure, 'ratio' | 'met'> => ({
  id,
  item: 2,
  title,
  unit: 'ms',
  value: t.p99,
  target: pageTarget,
  note: `p50 ${t.p50.toFixed(1)} ms, ${t.samples} requests`,
});

const historyFigure = (id: string, title: string, t: Timed): Omit<ScaleFigure, 'ratio' | 'met'> => ({
  id,
  item: 3,
  title,
  unit: 'ms',
  value: t.p99,
  target: pageTarget,
  note: `p50 ${t.p50.toFixed(1)} ms, ${t.samples} requests, random objects`,
});

/** A small deterministic generator (mulberry32), so runs pick the same objects. */
function seededRandom(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
