/**
 * Every row on one backend, in phases: the loads and watches on a fresh server, and its
 * memory after them (with PostgreSQL's when it is the backend); the
 * `--workers` rows (PostgreSQL) on servers of 1 and 2 workers; the 1,000 watchers on a
 * server restarted for each run; the LIST rows' objects copied in SQL with the server
 * stopped; the LISTs (and, on PostgreSQL, a second replica) on the restarted server;
 * then the remaining fresh starts of the time-to-ready row.
 */
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { runName, step, type BenchContext } from './bench-context.js';
import { CairnProcess, type CairnOptions } from './cairn-process.js';
import { createListTemplate, listRows, seedAndMeasureLimit, streamedListRow } from './list-rows.js';
import { openRawPglite } from './raw-pglite.js';
import type { Backend } from './rows.js';
import { throughputRows } from './throughput-rows.js';
import { workersRows } from './workers-rows.js';
import { crossReplicaRow, manyWatchersRows, watchRows } from './watch-rows.js';
import { memoryRow } from './memory-row.js';
import { postgresProcesses, processUsage } from './server-usage.js';

/**
 * The flags of the servers of the GET rows: every GET reads the database, as each does past the object
 * cache's bound (at a million objects), not the cache on some runs and the database on others as the
 * creates before them cross the default bound. A small bound, not none: past it is the path at scale.
 */
const pastTheObjectCache = ['--object-cache-size', '100'];

/** Runs every row of `backend`; throws only when no server could be started. */
export async function benchBackend(ctx: BenchContext, backend: Backend): Promise<void> {
  const logFile = join(ctx.workDir, `cairn-${backend}.log`);
  const dataDir = (): Promise<string> => mkdtemp(join(ctx.workDir, `${backend}-data-`));
  const fresh = async (): Promise<CairnOptions> => ({
    dataDir: await dataDir(),
    ...(backend === 'postgres' ? { databaseUrl: await ctx.postgres!.cluster.createDatabase() } : {}),
    logFile,
  });
  const location = await fresh();

  ctx.progress.step(`${backend}: starting Cairn`);
  const first = await CairnProcess.start({ ...location, extraArgs: pastTheObjectCache });
  try {
    ctx.collector.add(backend, 'time-to-ready', 'cairn', first.timeToReadyMs / 1000);
    const raw = backend === 'pglite' ? await openRawPglite(await mkdtemp(join(ctx.workDir, 'raw-pglite-'))) : undefined;
    const usage = processUsage(first.pid, backend === 'postgres' ? await postgresProcesses(ctx.postgres!.cluster) : undefined);
    try {
      await throughputRows(ctx, backend, first, usage, raw);
    } finally {
      await raw?.close();
    }
    await watchRows(ctx, backend, first);
    memoryRow(ctx, backend, usage);
    await createListTemplate(first);
  } finally {
    await first.stop();
  }
  if (backend === 'postgres') await workersRows(ctx, { ...(await fresh()), extraArgs: pastTheObjectCache });
  await manyWatchersRows(ctx, backend, () => CairnProcess.start(location));

  await seedAndMeasureLimit(ctx, backend, location);

  ctx.progress.step(`${backend}: restarting Cairn`);
  const second = await CairnProcess.start(location);
  ctx.collector.note(backend, 'time-to-ready', `with the LIST rows' objects in the database: ${(second.timeToReadyMs / 1000).toFixed(2)} s`);
  try {
    if (backend === 'postgres') {
      const replica = await CairnProcess.start({ dataDir: await dataDir(), databaseUrl: location.databaseUrl, logFile });
      try {
        await crossReplicaRow(ctx, second.access, replica.access);
      } finally {
        await replica.stop();
      }
    }
    await listRows(ctx, backend, second);
  } finally {
    await second.stop();
  }
  await streamedListRow(ctx, backend, () => CairnProcess.start(location));

  for (let run = 1; run < ctx.profile.runs; run++) {
    await step(ctx, backend, 'time-to-ready', `time to ready${runName(ctx, run)}`, async () => {
      const server = await CairnProcess.start(await fresh());
      ctx.collector.add(backend, 'time-to-ready', 'cairn', server.timeToReadyMs / 1000);
      await server.stop();
    });
  }
}
