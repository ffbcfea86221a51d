/**
 * The scale bench of issue 24 (`npm run bench -- --scale [N]`): seeds a database through
 * the fast path in sizes (10,000, 100,000, then N), measuring at each size the time to
 * ready, RSS and first pages (the chart's points) and the create rate; at N every figure
 * of items 1–6, each beside its target.
 */
import { join } from 'node:path';
import { CairnProcess, type CairnOptions } from './cairn-process.js';
import { measureCascade, prepareCascades } from './gc-cascade.js';
import type { Progress } from './progress.js';
import type { Backend } from './rows.js';
import { measureScaleReads, type ScaleReads } from './scale-reads.js';
import { scaleFigure, type ScaleFigure, type ScaleStage, type Target } from './scale-results.js';
import { measureCreates, runWatchLoad, type WatchLoadResult } from './scale-writes.js';
import { seedNamespace, seedPipelines, seededSelectors, type SeedShape } from './seed.js';
import { checkSamples, openSeedDatabase, readSampleRows, writeSeedTemplate } from './seed-samples.js';

/** What a scale run does. */
export interface ScaleOptions {
  readonly backend: Backend;
  /** Pipelines at the last size. */
  readonly count: number;
  readonly namespaces: number;
  readonly quick: boolean;
  /** Seconds of the 100 creates/s with 100 watchers after which the last RSS is read. */
  readonly soakSeconds: number;
  /** Where the server's data directory and log go. */
  readonly workDir: string;
  /** The database, on PostgreSQL; PGlite under the data directory otherwise. */
  readonly databaseUrl?: string;
  readonly progress: Progress;
}

/** The sizes the chart shows: 10,000 and 100,000 on the way to N. */
export const scaleSizes = (count: number): number[] => [...[10_000, 100_000].filter((s) => s < count), count];

/** The steps a run reports, for the progress bar's total. */
export const scaleSteps = (count: number): number => 1 + 3 * scaleSizes(count).length + 3;

/** Creates' clients and seconds, the 1,000 watchers' load and the read samples: less in a quick run. */
const profiles = {
  full: { createClients: 16, createSeconds: 10, sampleDivisor: 1, namespaceWatchers: 1000, namespaceWrites: { perSecond: 100, seconds: 20 } },
  quick: { createClients: 8, createSeconds: 1, sampleDivisor: 10, namespaceWatchers: 100, namespaceWrites: { perSecond: 100, seconds: 1 } },
} as const;

/**
 * Where the create-rate steps write: a namespace after every seeded one in key order.
 * Their Pipelines have neither the seeded labels nor a status, so every negation
 * selector matches them; after the seeded namespaces, a cluster-wide page of one still
 * finds the seeded 0.1 % first, as it would without them.
 */
const createsNamespace = 'zz-scale-creates';

const memoryTarget: Target = { op: '<=', bound: 512 };
const pageTarget: Target = { op: '<=', bound: 100 };
const n = (v: number): string => v.toLocaleString('en-US');

/**
 * Item 5: a background cascade over 100,000 dependents (200 in a quick run, which only
 * shows that it works: the collector's checks of the new dependents took most of the
 * smoke test's time at 1,000) and a foreground one over a tenth of that, on the server of
 * the last size, whose garbage collector ran through every step before (bench/gc-cascade.ts).
 */
async function gcCascade(server: CairnProcess, options: ScaleOptions, log: (line: string) => void): Promise<ScaleFigure[]> {
  const background = options.quick ? 200 : 100_000;
  const at = { access: server.access, pid: server.pid, ...(options.databaseUrl !== undefined && { databaseUrl: options.databaseUrl }) };
  await prepareCascades(at);
  const cascades = [await measureCascade(at, background, 'Background', log), await measureCascade(at, background / 10, 'Foreground', log)];
  return cascades.map((c) => ({
    id: `gc-cascade-${c.propagationPolicy.toLowerCase()}`,
    item: 5,
    title: `GC cascade over ${n(c.dependents)} dependents, ${c.propagationPolicy.toLowerCase()}`,
    unit: 'dependents/s',
    value: c.dependentsPerSecond,
    note: `finished in ${c.cascadeSeconds.toFixed(1)} s (after ${c.settleSeconds.toFixed(1)} s for the collector to check the new dependents); server RSS ${c.rssBeforeMiB.toFixed(0)} → peak ${c.rssPeakMiB.toFixed(0)} MiB`,
  }));
}

/** What a scale run measured; `notes` say what failed. */
export interface ScaleOutcome {
  readonly stages: ScaleStage[];
  readonly figures: ScaleFigure[];
  readonly notes: string[];
}

/** Runs the scale bench; a failed step is noted and its figures left out, and the run goes on where it can. */
export async function runScaleBench(options: ScaleOptions): Promise<ScaleOutcome> {
  const { backend, count, progress } = options;
  const profile = options.quick ? profiles.quick : profiles.full;
  const shape: SeedShape = { count, namespaces: options.namespaces };
  const location: CairnOptions = {
    dataDir: join(options.workDir, `scale-${backend}`),
    ...(options.databaseUrl !== undefined && { databaseUrl: options.databaseUrl }),
    logFile: join(options.workDir, `scale-${backend}.log`),
    extraArgs: ['--log-level', 'warn'],
  };
  const log = (line: string): void => progress.log(`${backend}: ${line}`);
  const notes: string[] = [];
  const stages: ScaleStage[] = [];
  const attempt = async <T>(what: string, work: () => Promise<T>): Promise<T | undefined> => {
    progress.step(`${backend}: ${what}`);
    try {
      return await work();
    } catch (error) {
      const message = `${what} failed: ${error instanceof Error ? error.message : String(error)}`;
      notes.push(message);
      log(message);
      return undefined;
    }
  };

  progress.step(`${backend}: writing the template through the API`);
  const template = await writeSeedTemplate(location);
  let seeded = 0;
  let objects = 0;
  let final: { reads: ScaleReads; namespace?: WatchLoadResult; soak?: WatchLoadResult } | undefined;
  for (const [index, size] of scaleSizes(count).entries()) {
    const stageShape = { ...shape, count: size };
    progress.step(`${backend}: seeding Pipelines ${n(seeded)} to ${n(size)}`);
    const started = performance.now();
    const database = await openSeedDatabase(location);
    let rows;
    try {
      await seedPipelines(database, {
        ...stageShape,
        template,
        from: seeded,
        onProgress: (written) => {
          if (written % 100_000 === 0)
            log(`seeded ${n(written)} of ${n(size)} (${n(Math.round((written - seeded) / ((performance.now() - started) / 1000)))}/s)`);
        },
      });
      rows = await readSampleRows(database, stageShape, seeded);
    } finally {
      await database.close();
    }
    const seedSeconds = (performance.now() - started) / 1000;
    log(`seeded ${n(size - seeded)} in ${seedSeconds.toFixed(1)} s`);
    objects += size - seeded;
    seeded = size;
    const last = size === count;
    progress.step(`${backend}: starting Cairn on ${n(objects)} Pipelines, ${last ? 'every read' : 'first pages'}`);
    const server = await CairnProcess.start(location);
    try {
      const reads = await measureScaleReads(server, { shape: stageShape, parts: last ? 'all' : 'first-pages', sampleDivisor: profile.sampleDivisor }, log);
      log(await checkSamples(server.access, stageShape, template, rows));
      const creates = await attempt(`creates at ${n(objects)} Pipelines, ${profile.createClients} clients for ${profile.createSeconds} s`, () =>
        measureCreates(server, createsNamespace, `c${index}`, profile.createClients, profile.createSeconds),
      );
      if (creates) log(`${n(Math.round(creates.perSecond))} creates/s`);
      stages.push({
        seeded: size,
        objects,
        seedSeconds: Number(seedSeconds.toFixed(2)),
        readyMs: Math.round(reads.readyMs),
        rssAfterStartMiB: Number(reads.rssMiB.afterStart.toFixed(1)),
        firstPage: { cluster: reads.latencies['first page, cluster'], namespace: reads.latencies['first page, namespace'] },
        ...(creates && { createsPerSecond: Math.round(creates.perSecond) }),
      });
      objects += creates?.created ?? 0;
      if (!last) continue;
      final = { reads };
      const w = profile.namespaceWatchers;
      const watched = Array.from({ length: w }, (_, k) => `scale-watch-${String(k).padStart(4, '0')}`);
      final.namespace = await attempt(`${n(w)} watchers, one namespace each, half the creates to theirs`, () =>
        runWatchLoad(server, {
          tag: 'wn',
          watched,
          target: (i) => (i % 2 === 0 ? { namespace: watched[(i / 2) % w], watcher: (i / 2) % w } : { namespace: seedNamespace(i, shape) }),
          ...profile.namespaceWrites,
        }),
      );
      if (final.namespace) log(watchLine(final.namespace));
      const soakWatched = Array.from({ length: Math.min(100, shape.namespaces) }, (_, k) => seedNamespace(k, shape));
      final.soak = await attempt(`100 creates/s with ${soakWatched.length} watchers for ${n(options.soakSeconds)} s`, () =>
        runWatchLoad(
          server,
          {
            tag: 'soak',
            watched: soakWatched,
            target: (i) => ({ namespace: soakWatched[i % soakWatched.length], watcher: i % soakWatched.length }),
            perSecond: 100,
            seconds: options.soakSeconds,
          },
          log,
        ),
      );
      if (final.soak) log(watchLine(final.soak));
      const gc = await attempt('GC cascades', () => gcCascade(server, options, log));
      return { stages, figures: figures(options, stages, final, gc), notes };
    } finally {
      await server.stop();
    }
  }
  return { stages, figures: figures(options, stages, final, undefined), notes };
}

const watchLine = (r: WatchLoadResult): string =>
  `${n(r.watchers)} watchers, ${n(r.writes)} creates: delivery p50 ${r.latencyMs.p50.toFixed(1)} ms, p99 ${r.latencyMs.p99.toFixed(1)} ms; ` +
  `${r.missing} missing, ${r.foreign} foreign; server RSS ${r.rssMiB.before.toFixed(0)} → peak ${r.rssMiB.peak.toFixed(0)} MiB, ${r.serverCores.toFixed(2)} cores`;

/** Every figure of items 1–6 at N, each with its target. */
function figures(
  options: ScaleOptions,
  stages: readonly ScaleStage[],
  final: { reads: ScaleReads; namespace?: WatchLoadResult; soak?: WatchLoadResult } | undefined,
  gc: ScaleFigure[] | undefined,
): ScaleFigure[] {
  const at = `${n(options.count)} Pipelines`;
  const reads = final?.reads;
  const l = reads?.latencies ?? {};
  const out: Omit<ScaleFigure, 'ratio' | 'met'>[] = [
    { id: 'rss-start', item: 1, title: `RSS after start, ${at}`, unit: 'MiB', value: reads?.rssMiB.afterStart, target: memoryTarget },
    { id: 'rss-paged', item: 1, title: 'RSS after a cluster-wide paged LIST of all', unit: 'MiB', value: reads?.rssMiB.afterPaging, target: memoryTarget },
    {
      id: 'rss-streamed',
      item: 1,
      title: 'RSS after an unpaginated (streamed) LIST of all',
      unit: 'MiB',
      value: reads?.rssMiB.afterStreamed,
      target: memoryTarget,
    },
    { id: 'rss-streamed-peak', item: 1, title: 'RSS peak during the unpaginated LIST', unit: 'MiB', value: reads?.rssMiB.peakStreamed },
    {
      id: 'rss-soak',
      item: 1,
      title: `RSS after ${n(options.soakSeconds)} s of 100 creates/s with 100 watchers`,
      unit: 'MiB',
      value: final?.soak?.rssMiB.after,
      target: memoryTarget,
      ...(final?.soak && { note: `peak ${final.soak.rssMiB.peak.toFixed(0)} MiB; ${watchLine(final.soak)}` }),
    },
    { id: 'ready', item: 2, title: `ready time, ${at}`, unit: 's', value: reads && reads.readyMs / 1000, target: { op: '<=', bound: 3 } },
    ...(['cluster', 'namespace'] as const).map((scope) => {
      const f = l[`first page, ${scope}`];
      return {
        id: `first-page-${scope}`,
        item: 2,
        title: `first page (500), ${scope}, p99 from the first request after start`,
        unit: 'ms',
        value: f?.p99,
        target: pageTarget,
        ...(f && { note: `first request ${f.first.toFixed(1)} ms, p50 ${f.p50.toFixed(1)} ms, ${f.samples} requests` }),
      };
    }),
    { id: 'get', item: 2, title: 'GET by name, p99', unit: 'ms', value: l.get?.p99, target: { op: '<=', bound: 10 } },
    ...Object.entries({
      ...prefixed('label', seededSelectors.label),
      ...prefixed('field', seededSelectors.field),
      'field metadata.name': '',
      'field metadata.namespace': '',
    }).flatMap(([name, selector]) =>
      (['cluster', 'namespace'] as const)
        .filter((scope) => l[`${name}, ${scope}`])
        .map((scope) => {
          const f = l[`${name}, ${scope}`];
          return {
            id: `${name.replaceAll(' ', '-')}-${scope}`,
            item: 2,
            title: `${name.split(' ')[0]} selector ${selector ? `\`${selector}\`` : name.split(' ')[1]}, ${scope}, p99`,
            unit: 'ms',
            value: f.p99,
            target: pageTarget,
            note: `${f.items ?? 0} items in the last answer's page`,
          };
        }),
    ),
    {
      id: 'paging',
      item: 2,
      title: 'paging through all by 500',
      unit: 'objects/s',
      value: reads?.paging?.perSecond,
      target: { op: '>=', bound: 20_000 },
      ...(reads?.paging && {
        note: `${n(reads.paging.objects)} in ${reads.paging.seconds.toFixed(1)} s, server CPU ${reads.paging.cpuMsPer1000.toFixed(0)} ms per 1,000`,
      }),
    },
    {
      id: 'streaming',
      item: 2,
      title: 'one unpaginated (streamed) LIST of all',
      unit: 'objects/s',
      value: reads?.streamed?.perSecond,
      target: { op: '>=', bound: 50_000 },
      ...(reads?.streamed && {
        note: `${n(reads.streamed.objects)} (${(reads.streamed.bytes / 2 ** 20).toFixed(0)} MiB) in ${reads.streamed.seconds.toFixed(1)} s, server CPU ${reads.streamed.cpuMsPer1000.toFixed(0)} ms per 1,000`,
      }),
    },
    ...namespaceFigures(final?.namespace),
    ...(gc ?? [{ id: 'gc-cascade-background', item: 5, title: 'GC cascade, background', unit: 'dependents/s', note: 'the step failed' }]),
    ...createFigures(options.count, stages),
  ];
  return out.map(scaleFigure);
}

const prefixed = (kind: string, selectors: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(selectors).map(([name, s]) => [`${kind} ${name}`, s]));

function namespaceFigures(r: WatchLoadResult | undefined): Omit<ScaleFigure, 'ratio' | 'met'>[] {
  const w = r ? n(r.watchers) : '1,000';
  return [
    {
      id: 'namespace-watchers-latency',
      item: 4,
      title: `${w} watchers, one namespace each: delivery p99`,
      unit: 'ms',
      value: r?.latencyMs.p99,
      ...(r && {
        note: `p50 ${r.latencyMs.p50.toFixed(1)} ms, max ${r.latencyMs.max.toFixed(0)} ms, ${n(r.delivered)} deliveries of ${n(r.writes)} creates (half to unwatched namespaces)`,
      }),
    },
    {
      id: 'namespace-watchers-foreign',
      item: 4,
      title: `${w} watchers: events of a namespace the watcher does not watch`,
      unit: 'events',
      value: r?.foreign,
      target: { op: '<=', bound: 0 },
    },
    {
      id: 'namespace-watchers-missing',
      item: 4,
      title: `${w} watchers: deliveries missing 30 s after the last create`,
      unit: 'events',
      value: r?.missing,
      target: { op: '<=', bound: 0 },
    },
    {
      id: 'namespace-watchers-rss',
      item: 4,
      title: `${w} watchers: server RSS peak while the creates ran`,
      unit: 'MiB',
      value: r?.rssMiB.peak,
      target: memoryTarget,
      ...(r && { note: `${r.rssMiB.before.toFixed(0)} MiB before the watchers opened` }),
    },
    { id: 'namespace-watchers-cpu', item: 4, title: `${w} watchers: server CPU while the creates ran`, unit: 'cores', value: r?.serverCores },
  ];
}

function createFigures(count: number, stages: readonly ScaleStage[]): Omit<ScaleFigure, 'ratio' | 'met'>[] {
  const base = stages.find((s) => s.seeded === 10_000)?.createsPerSecond;
  const top = stages.at(-1)?.seeded === count ? stages.at(-1)?.createsPerSecond : undefined;
  return [
    { id: 'creates-10k', item: 6, title: 'creates/s at 10,000 Pipelines', unit: '/s', value: base },
    { id: 'creates-n', item: 6, title: `creates/s at ${n(count)} Pipelines`, unit: '/s', value: top },
    {
      id: 'creates-ratio',
      item: 6,
      title: `creates/s at ${n(count)} over creates/s at 10,000, same run`,
      unit: '×',
      value: base && top !== undefined ? top / base : undefined,
      target: { op: '>=', bound: 0.9 },
    },
  ];
}
